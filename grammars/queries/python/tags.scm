; Python tags.
;
; Docstrings (the first statement of a body, when it is a string) are captured as @doc;
; `# comments` right above a definition are found by the extractor itself.
; Patterns for the same node end on the same node, so the specific one (listed first) wins.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

; class Color(Enum): an enum
(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [
      (identifier) @_base
      (attribute attribute: (identifier) @_base)
    ])
  body: (block . (expression_statement (string) @doc)?)
  (#match? @_base "^(Enum|IntEnum|StrEnum|Flag|IntFlag)$")) @definition.enum

; class Drawable(Protocol): an interface
(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [
      (identifier) @_base
      (attribute attribute: (identifier) @_base)
      (subscript value: (identifier) @_base)
    ])
  body: (block . (expression_statement (string) @doc)?)
  (#eq? @_base "Protocol")) @definition.interface

(class_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?)) @definition.class

; functions; inside a class they become methods
(function_definition
  name: (identifier) @name
  body: (block . (expression_statement (string) @doc)?)) @definition.function

; type Number = int | float
(type_alias_statement
  left: (type [
    (identifier) @name
    (generic_type (identifier) @name)
  ])) @definition.type

; Point = namedtuple("Point", "x y"), class-like factories
(expression_statement
  (assignment
    left: (identifier) @name
    right: (call
      function: [
        (identifier) @_factory
        (attribute attribute: (identifier) @_factory)
      ]))
  (#match? @_factory "^(namedtuple|NamedTuple|TypedDict)$")) @definition.class

; UserId = NewType("UserId", int)
(expression_statement
  (assignment
    left: (identifier) @name
    right: (call
      function: [
        (identifier) @_factory
        (attribute attribute: (identifier) @_factory)
      ]))
  (#eq? @_factory "NewType")) @definition.type

; square = lambda x: x * x
(expression_statement
  (assignment
    left: (identifier) @name
    right: (lambda)) @definition.function)

; any other lambda: an anonymous function (`<lambda1>`, numbered per scope)
(lambda) @definition.function

; PI2 = ..., MAX: Final = ... at module level
(module
  (expression_statement
    (assignment
      left: (identifier) @name)) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; KIND = "shape" in a class body (enum members included)
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name)) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; import os.path
(import_statement
  name: (dotted_name) @name @import.module) @reference.import

; import os.path as osp
(import_statement
  name: (aliased_import
    name: (dotted_name) @name @import.module
    alias: (identifier) @import.alias)) @reference.import

; mod = importlib.import_module("a.b"), mod = __import__("a"): an import under that name
; (`__import__("a.b")` gives `a`, so only a name without dots)
(assignment
  left: (identifier) @import.alias
  right: (call
    function: (attribute object: (identifier) @_lib attribute: (identifier) @_f)
    arguments: (argument_list . (string) @name @import.module .))
  (#eq? @_lib "importlib")
  (#eq? @_f "import_module")) @reference.import

(assignment
  left: (identifier) @import.alias
  right: (call
    function: (identifier) @_f
    arguments: (argument_list . (string) @name @import.module .))
  (#eq? @_f "import_module")) @reference.import

(assignment
  left: (identifier) @import.alias
  right: (call
    function: (identifier) @_f
    arguments: (argument_list . (string) @name @import.module .))
  (#eq? @_f "__import__")
  (#not-match? @name "^.[^.]*[.]")) @reference.import

; from a.b import c / from . import c
(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @name) @reference.import

; from a.b import c as d
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import
    name: (dotted_name) @name
    alias: (identifier) @import.alias)) @reference.import

; from a.b import *: the name is `*`
(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @name) @reference.import

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; x = f(…), x = mod.Class(…), self.x = Class(…): the call's @import.alias is the
; variable that holds its result (the resolver types calls on it). Same names and
; receivers as the generic patterns below, which they precede.
(assignment
  left: [
    (identifier) @import.alias
    (attribute object: (identifier) @_self) @import.alias
  ]
  right: (call
    function: (attribute
      object: (_) @receiver
      attribute: (identifier) @name)) @reference.call
  (#not-match? @receiver "^super\\(")
  (#any-of? @_self "self" "cls"))

(assignment
  left: [
    (identifier) @import.alias
    (attribute object: (identifier) @_self) @import.alias
  ]
  right: (call
    function: (identifier) @name) @reference.call
  (#not-eq? @name "super")
  (#any-of? @_self "self" "cls"))

; return f(…), yield f(…), lambda: f(…): the call's result is what the function returns
([
  (return_statement (call function: (identifier) @name) @reference.call)
  (return_statement (call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call)
  (yield (call function: (identifier) @name) @reference.call)
  (yield (call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call)
  (lambda body: (call function: (identifier) @name) @reference.call)
  (lambda body: (call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call)
] @flow.return
  (#not-eq? @name "super"))

; g(f(…)), g(key=f(…)): the call's result is an argument of g. (One pattern per form of
; the argument, here and below: an alternation over a list's children costs tree-sitter a
; state per child and branch, and these patterns are tried at every call.)
(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (call function: (identifier) @name) @reference.call) @arg.list
  (#not-eq? @name "super"))

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (keyword_argument value: (call function: (identifier) @name) @reference.call)) @arg.list
  (#not-eq? @name "super"))

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call) @arg.list
  (#not-eq? @name "super"))

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (keyword_argument value: (call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call)) @arg.list
  (#not-eq? @name "super"))

; @dec def f / @dec(args) def f: the decorator's call, bound to the name it decorates
; (`@f`: f = dec(f); `@@f`: f = dec(args)(f))
(decorated_definition
  (decorator [
    (identifier) @name
    (attribute object: (_) @receiver attribute: (identifier) @name)
  ] @reference.call)
  definition: [
    (function_definition name: (identifier) @decorates)
    (class_definition name: (identifier) @decorates)
  ]
  (#not-match? @name "^(staticmethod|classmethod|property|abstractmethod|override|overload)$"))

(decorated_definition
  (decorator (call function: [
    (identifier) @name
    (attribute object: (_) @receiver attribute: (identifier) @name)
  ]) @reference.call)
  definition: [
    (function_definition name: (identifier) @decorates.result)
    (class_definition name: (identifier) @decorates.result)
  ])

; engines[k](…), make()(…): a call of an element or of a call's result; the name is the
; expression as written
(assignment
  left: [
    (identifier) @import.alias
    (attribute object: (identifier) @_self) @import.alias
  ]
  right: (call
    function: [(subscript) (call)] @name) @reference.call
  (#any-of? @_self "self" "cls"))

(call
  function: [(subscript) (call)] @name) @reference.call

; super().method(): the receiver is `super`
(call
  function: (attribute
    object: (call
      function: (identifier) @receiver
      (#eq? @receiver "super"))
    attribute: (identifier) @name)) @reference.call

; obj.method(), Type.static(), pkg.mod.func()
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)
  (#not-match? @receiver "^super\\(")) @reference.call

; func(), Class()
(call
  function: (identifier) @name
  (#not-eq? @name "super")) @reference.call

; @decorator and @pkg.decorator (a call of the decorator with the function);
; `@decorator(args)` is a call already
(decorator
  (identifier) @name
  (#not-match? @name "^(staticmethod|classmethod|property)$")) @reference.call

(decorator
  (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

; h = getattr(o, "name"): h holds what `o.name` does (a value named by the call as written)
(assignment
  left: (identifier) @import.alias
  right: (call function: (identifier) @_getattr) @name @reference.value
  (#eq? @_getattr "getattr"))

; setattr(o, "name", f), setattr(o, expr, f): f is stored in o's attribute `name` (named by
; an expression: under a name not known, `*`)
(call
  function: (identifier) @_setattr
  arguments: (argument_list .
    (_) @import.alias .
    (_) @flow.key .
    [
      (identifier) @name
      (attribute object: (_) @receiver attribute: (identifier) @name)
    ] @reference.value .)
  (#eq? @_setattr "setattr"))

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name (each with its call and slot: the value flows to
; the callee's parameter)
; ---------------------------------------------------------------------------

; (`self` and `cls` passed so are values, the instance or the class: the extractor makes them
; so.)
(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (identifier) @name @reference.callback) @arg.list)

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (keyword_argument value: (identifier) @name @reference.callback)) @arg.list)

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (list_splat (identifier) @name @reference.callback)) @arg.list)

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (dictionary_splat (identifier) @name @reference.callback)) @arg.list)

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (attribute object: (_) @receiver attribute: (identifier) @name @reference.callback)) @arg.list
  (#not-match? @name "^__.*__$"))

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (keyword_argument value: (attribute object: (_) @receiver attribute: (identifier) @name @reference.callback))) @arg.list
  (#not-match? @name "^__.*__$"))

; a lambda passed along: a value
(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (lambda) @name @reference.value) @arg.list)

(call
  function: [
    (identifier) @arg.of
    (attribute attribute: (identifier) @arg.of)
  ]
  arguments: (argument_list
    (keyword_argument value: (lambda) @name @reference.value)) @arg.list)

; arguments of a call of something else (`engines[k](f)`, `f()(g)`): no link
(call
  function: [(subscript) (call) (parenthesized_expression) (list_splat) (await)]
  arguments: (argument_list
    [
      (identifier) @name @reference.callback
      (keyword_argument value: (identifier) @name @reference.callback)
    ])
  (#not-match? @name "^(self|cls)$"))

(call
  function: [(subscript) (call) (parenthesized_expression) (list_splat) (await)]
  arguments: (argument_list
    [
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.callback)
      (keyword_argument value: (attribute object: (_) @receiver attribute: (identifier) @name @reference.callback))
    ])
  (#not-match? @name "^__.*__$"))

; ---------------------------------------------------------------------------
; Values: names that flow into a variable (`@import.alias`: `h`, `self.h`, `d[k]`) or
; into what the function returns
; ---------------------------------------------------------------------------

; h = f, h = mod.f, self.h = self.m, d[k] = C, h = d[k], h = f if c else g
(assignment
  left: [(identifier) (attribute) (subscript)] @import.alias
  right: [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.value
    (subscript value: [(identifier) (attribute)]) @name @reference.value
    (conditional_expression [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
    ])
    (boolean_operator [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
    ])
  ])

; f = g = h: `f` holds what `g` does (`g = h` is the pattern above)
(assignment
  left: [(identifier) (attribute) (subscript)] @import.alias
  right: (assignment
    left: [(identifier) (attribute)] @name @reference.value))

; a, b = f, g (the first three, pairwise)
(assignment
  left: (pattern_list . (identifier) @import.alias)
  right: (expression_list . [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
  ]))

(assignment
  left: (pattern_list . (_) . (identifier) @import.alias)
  right: (expression_list . (_) . [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
  ]))

(assignment
  left: (pattern_list . (_) . (_) . (identifier) @import.alias)
  right: (expression_list . (_) . (_) . [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
  ]))

; h = [], h = {}: a container filled later (`h.append(f)`, `h[k] = f`) is a variable of
; this scope
(assignment
  left: (identifier) @import.alias
  right: [(list) (dictionary)] @name @reference.value
  (#match? @name "^(\\[\\s*\\]|\\{\\s*\\})$"))

; h = [f, g], h = {"a": A}, h = (f, g), h = {f}: the container holds them
(assignment
  left: [(identifier) (attribute) (subscript)] @import.alias
  right: [
    (list [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
      (lambda) @name @reference.value
    ])
    (tuple [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
      (lambda) @name @reference.value
    ])
    (set [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
    ])
    (dictionary (pair value: [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
      (lambda) @name @reference.value
    ]))
  ])

; d[k] = lambda: …
(assignment
  left: [(attribute) (subscript)] @import.alias
  right: (lambda) @name @reference.value)

; return f, return self.m, return f, g, return [f, g], yield f, lambda: f
([
  (return_statement [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.value
    (lambda) @name @reference.value
  ])
  (return_statement [
    (expression_list [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
    ])
    (list [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
    ])
    (tuple [
      (identifier) @name @reference.value
      (attribute object: (_) @receiver attribute: (identifier) @name @reference.value)
    ])
  ])
  (yield [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.value
  ])
  (lambda body: [
    (identifier) @name @reference.value
    (attribute object: (_) @receiver attribute: (identifier) @name) @reference.value
  ])
] @flow.return)

; ---------------------------------------------------------------------------
; Implicit calls
; ---------------------------------------------------------------------------

; for x in xs / [… for x in xs]: __iter__ and __next__ of the iterable's class; x is
; each element
(for_statement
  left: (_) @import.alias
  right: (_) @name @reference.iteration)

(for_in_clause
  left: (_) @import.alias
  right: (_) @name @reference.iteration)

; with e as x: __enter__ and __exit__ of e's class; x is what __enter__ returns
(with_item
  value: (as_pattern
    (_) @name @reference.context
    alias: (as_pattern_target (_) @import.alias)))

(with_item
  value: [(identifier) (attribute) (call)] @name @reference.context)

; Operators: the operand whose class's method runs; the alias is the operator's token
; (`a[k] = v`: `__setitem__`, `a[k]`: `__getitem__`, `a + b`: `__add__`, `a == b`: `__eq__`,
; `x in a`: `a.__contains__`). Operands that are names or attributes only (the value flow
; knows nothing of a literal's or a call's class that a name would not tell).
(assignment
  left: (subscript value: [(identifier) (attribute)] @name)
  "=" @import.alias) @reference.operator

(subscript
  value: [(identifier) (attribute)] @name
  "[" @import.alias) @reference.operator

(binary_operator
  left: [(identifier) (attribute)] @name
  operator: _ @import.alias) @reference.operator

(comparison_operator
  .
  [(identifier) (attribute)] @name
  .
  operators: ["<" "<=" "==" "!=" ">=" ">"] @import.alias) @reference.operator

(comparison_operator
  operators: ["in" "not in"] @import.alias
  .
  [(identifier) (attribute)] @name) @reference.operator

; raise E (raise E(…) is a call)
(raise_statement
  [
    (identifier) @name
    (attribute object: (_) @receiver attribute: (identifier) @name)
  ] @reference.raise)

; ---------------------------------------------------------------------------
; Types
; ---------------------------------------------------------------------------

; Bindings: a type reference whose @import.alias is the variable it types (a
; parameter, an annotated variable or `self.attr`), so that calls on the variable find
; the type. They come first: the generic annotation patterns below match the same
; names. (A variable initialised by a call is the call's alias, under Calls.)

; A type test narrows its variable in the `if`'s branch (not in its `elif` or `else`):
; `if isinstance(s, Circle): s.area()`, alone or first of an `and`
(if_statement
  condition: [
    (call
      function: (identifier) @_test
      arguments: (argument_list . (identifier) @import.alias . (identifier) @name .))
    (boolean_operator
      left: (call
        function: (identifier) @_test
        arguments: (argument_list . (identifier) @import.alias . (identifier) @name .))
      operator: "and")
  ]
  consequence: (block) @binding.scope
  (#eq? @_test "isinstance")) @reference.type

; def f(c: Circle), def f(c: Circle = None)
(typed_parameter
  (identifier) @import.alias
  type: (type (identifier) @name)
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$")) @reference.type

(typed_default_parameter
  name: (identifier) @import.alias
  type: (type (identifier) @name)
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$")) @reference.type

; def f(cs: list[Circle]): what the collection holds (the value flow does not tell a
; container from its elements)
(typed_parameter
  (identifier) @import.alias
  type: (type (generic_type
    (identifier) @_collection
    (type_parameter . (type (identifier) @name))))
  (#any-of? @_collection "list" "List" "Sequence" "MutableSequence" "Iterable" "Iterator" "Collection" "set" "Set" "frozenset" "FrozenSet" "deque" "Deque")
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$")) @reference.type

; c: Circle = …, self.c: Circle = …
(assignment
  left: [
    (identifier) @import.alias
    (attribute object: (identifier) @_self) @import.alias
  ]
  type: (type (identifier) @name)
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$")
  (#any-of? @_self "self" "cls")) @reference.type

; base classes
(class_definition
  superclasses: (argument_list
    [
      (identifier) @name @reference.type
      (subscript value: (identifier) @name @reference.type)
    ])
  (#not-match? @name "^(object|Generic)$"))

(class_definition
  superclasses: (argument_list
    [
      (attribute
        object: (_) @receiver
        attribute: (identifier) @name @reference.type)
      (subscript
        value: (attribute
          object: (_) @receiver
          attribute: (identifier) @name @reference.type))
    ]))

; class A(metaclass=Meta)
(class_definition
  superclasses: (argument_list
    (keyword_argument
      name: (identifier) @_kw
      value: (identifier) @name @reference.type)
    (#eq? @_kw "metaclass")))

; annotations: parameters, variables, return types, alias bodies, generic arguments
(_
  type: (type (identifier) @name @reference.type)
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$"))

(function_definition
  return_type: (type (identifier) @name @reference.type)
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$"))

(type_alias_statement
  right: (type (identifier) @name @reference.type)
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$"))

(type
  [
    (generic_type (identifier) @name @reference.type)
    (generic_type (type_parameter (type (identifier) @name @reference.type)))
    (binary_operator [
      (identifier) @name @reference.type
      (binary_operator (identifier) @name @reference.type)
    ])
  ]
  (#not-match? @name "^(int|str|float|bool|bytes|object|list|dict|set|tuple|type|complex|Any)$"))

(type
  (attribute
    object: (_) @receiver
    attribute: (identifier) @name @reference.type))

; "Canvas": a forward reference in a string
(type
  (string (string_content) @name @reference.type)
  (#match? @name "^[A-Za-z_][A-Za-z0-9_]*$"))
