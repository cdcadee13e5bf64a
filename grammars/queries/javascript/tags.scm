; JavaScript (and JSX) tags.
;
; JSDoc and `//` comments right above a definition (or above its `export`) are found
; by the extractor itself. Variable-bound functions use the whole declaration as the
; definition node so that the comment above `const f = () => …` is its doc.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(class_declaration
  name: (identifier) @name) @definition.class

(class
  name: (identifier) @name) @definition.class

; const Foo = class { … }
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

; methods, constructors, getters/setters, #private methods; a function in an object
; literal (the extractor makes functions of a class methods)
(method_definition
  name: [
    (property_identifier)
    (private_property_identifier)
  ] @name) @definition.function

; class fields holding a function: onResize = (e) => { … }
(field_definition
  property: [
    (property_identifier)
    (private_property_identifier)
  ] @name
  value: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]) @definition.method

; static MAX = 3
(field_definition
  "static"
  property: (property_identifier) @name
  value: [
    (number) (string) (template_string) (regex) (true) (false) (null)
    (identifier) (member_expression) (subscript_expression)
    (binary_expression) (unary_expression) (ternary_expression)
    (object) (array) (call_expression) (new_expression)
  ]
  (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; const f = () => …, const f = function () { … }
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function)
      (function_expression)
      (generator_function)
    ])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (arrow_function)
      (function_expression)
      (generator_function)
    ])) @definition.function

; module.exports = function serve() { … }: the function's own name
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    right: [
      (function_expression
        name: (identifier) @name)
      (generator_function
        name: (identifier) @name)
    ]) @definition.function
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; f = function () { … }, Foo.prototype.bar = function () { … }, exports.x = () => …
(expression_statement
  (assignment_expression
    left: [
      (identifier) @name
      (member_expression
        property: (property_identifier) @name)
    ]
    right: [
      (arrow_function)
      (function_expression)
      (generator_function)
    ]) @definition.function
  (#not-eq? @name "exports"))

; { key: () => … } in an object literal
(pair
  key: (property_identifier) @name
  value: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]) @definition.function

; Functions no declaration names, where they are passed, returned, stored in an array or
; a subscript, or called on the spot: a function expression with a name of its own is
; that name; any other is anonymous (`<lambdaN>`, numbered per scope)
([
  (arguments (function_expression name: (identifier) @name) @definition.function)
  (return_statement (function_expression name: (identifier) @name) @definition.function)
  (array (function_expression name: (identifier) @name) @definition.function)
  (parenthesized_expression (function_expression name: (identifier) @name) @definition.function)
  (arrow_function body: (function_expression name: (identifier) @name) @definition.function)
])

([
  (arguments [(arrow_function) (function_expression !name) (generator_function !name)] @definition.function)
  (return_statement [(arrow_function) (function_expression !name)] @definition.function)
  (array [(arrow_function) (function_expression !name)] @definition.function)
  (parenthesized_expression [(arrow_function) (function_expression !name)] @definition.function)
  (arrow_function body: [(arrow_function) (function_expression !name)] @definition.function)
  (assignment_expression
    left: (subscript_expression)
    right: [(arrow_function) (function_expression !name)] @definition.function)
])

; const MAX_SIZE = 10 at the top level (exported or not)
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [
        (number) (string) (template_string) (regex) (true) (false) (null)
        (identifier) (member_expression) (subscript_expression)
        (binary_expression) (unary_expression) (ternary_expression)
        (object) (array) (call_expression) (new_expression)
      ])) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [
          (number) (string) (template_string) (regex) (true) (false) (null)
          (identifier) (member_expression) (subscript_expression)
          (binary_expression) (unary_expression) (ternary_expression)
          (object) (array) (call_expression) (new_expression)
        ])) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------------------
; Imports and re-exports
; ---------------------------------------------------------------------------

; import React from "react"
(import_statement
  (import_clause
    (identifier) @name)
  source: (string (string_fragment) @import.module)) @reference.import

; import { a } from "m"
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @name
        !alias)))
  source: (string (string_fragment) @import.module)) @reference.import

; import { a as b } from "m"
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @name
        alias: (_) @import.alias)))
  source: (string (string_fragment) @import.module)) @reference.import

; import * as ns from "m"
(import_statement
  (import_clause
    (namespace_import
      (identifier) @import.alias))
  source: (string (string_fragment) @name @import.module)) @reference.import

; import "m"
(import_statement
  .
  source: (string (string_fragment) @name @import.module)) @reference.import

; export { a, b as c } from "m"
(export_statement
  (export_clause
    (export_specifier
      name: (_) @name
      !alias))
  source: (string (string_fragment) @import.module)) @reference.import

(export_statement
  (export_clause
    (export_specifier
      name: (_) @name
      alias: (_) @import.alias))
  source: (string (string_fragment) @import.module)) @reference.import

; export * as ns from "m"
(export_statement
  (namespace_export
    (_) @import.alias)
  source: (string (string_fragment) @name @import.module)) @reference.import

; export * from "m"
(export_statement
  .
  source: (string (string_fragment) @name @import.module)) @reference.import

; export default function log() {}, export default class C {}, export default log:
; the file's default export, `export { log as default }` in effect (alias `default`,
; no module)
(export_statement
  "default" @import.alias
  declaration: [
    (function_declaration name: (identifier) @name)
    (generator_function_declaration name: (identifier) @name)
    (class_declaration name: (identifier) @name)
  ]) @reference.import

(export_statement
  "default" @import.alias
  value: (identifier) @name) @reference.import

; const x = require("m")
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string (string_fragment) @name @import.module)))
  (#eq? @_require "require")) @reference.import

; const { a, b: c } = require("m")
(variable_declarator
  name: (object_pattern
    (shorthand_property_identifier_pattern) @name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string (string_fragment) @import.module)))
  (#eq? @_require "require")) @reference.import

(variable_declarator
  name: (object_pattern
    (pair_pattern
      key: (property_identifier) @name
      value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string (string_fragment) @import.module)))
  (#eq? @_require "require")) @reference.import

; const b = require("m").a
(variable_declarator
  name: (identifier) @import.alias
  value: (member_expression
    object: (call_expression
      function: (identifier) @_require
      arguments: (arguments
        .
        (string (string_fragment) @import.module)))
    property: (property_identifier) @name)
  (#eq? @_require "require")) @reference.import

; require("m") for its side effects
(expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments
      .
      (string (string_fragment) @name @import.module)))
  (#eq? @_require "require")) @reference.import

; import("m")
(call_expression
  function: (import)
  arguments: (arguments
    .
    (string (string_fragment) @name @import.module))) @reference.import

; ---------------------------------------------------------------------------
; Value flow: what a variable, a property, a parameter or a function's result holds.
; These come before the generic call and callback patterns, which match the same names
; (the first pattern wins).
; ---------------------------------------------------------------------------

; const x = f(…), x = new A(…), this.x = o.m(…), x = f()(…): the call's @import.alias is
; the variable that holds its result
(variable_declarator
  name: (identifier) @import.alias
  value: [
    (call_expression function: (identifier) @name)
    (new_expression constructor: (identifier) @name)
    (await_expression (call_expression function: (identifier) @name))
  ] @reference.call
  (#not-eq? @name "require"))

(variable_declarator
  name: (identifier) @import.alias
  value: [
    (call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @name))
    (new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name))
    (await_expression (call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @name)))
  ] @reference.call)

(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression function: [(call_expression) (subscript_expression)] @name) @reference.call)

(assignment_expression
  left: [(identifier) (member_expression) (subscript_expression)] @import.alias
  right: [
    (call_expression function: (identifier) @name)
    (new_expression constructor: (identifier) @name)
  ] @reference.call
  (#not-eq? @name "require"))

(assignment_expression
  left: [(identifier) (member_expression) (subscript_expression)] @import.alias
  right: [
    (call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @name))
    (new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name))
  ] @reference.call)

; return f(…), return new A(…), () => f(…): the call's result is what the function returns
([
  (return_statement [
    (call_expression function: (identifier) @name)
    (new_expression constructor: (identifier) @name)
  ] @reference.call)
  (return_statement [
    (call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @name))
    (new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name))
  ] @reference.call)
  (return_statement (call_expression function: [(call_expression) (subscript_expression)] @name) @reference.call)
  (arrow_function body: [
    (call_expression function: (identifier) @name)
    (new_expression constructor: (identifier) @name)
  ] @reference.call)
  (arrow_function body: (call_expression
    function: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call)
] @flow.return
  (#not-eq? @name "require"))

; g(f(…)): the call's result is an argument of g. (One pattern per form of the argument,
; here and below: an alternation over a list's children costs tree-sitter a state per child
; and branch, and these patterns are tried at every call.)
(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (call_expression function: (identifier) @name) @reference.call) @arg.list
  (#not-eq? @name "require"))

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (new_expression constructor: (identifier) @name) @reference.call) @arg.list
  (#not-eq? @name "require"))

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (call_expression
    function: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call) @arg.list
  (#not-eq? @name "require"))

; g(f), g(o.f), new G(f), g(...fs): the value flows to g's parameter
(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (identifier) @name @reference.callback) @arg.list
  (#not-match? @name "^(undefined|null|this|arguments)$"))

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (member_expression object: (_) @receiver property: (property_identifier) @name @reference.callback)) @arg.list
  (#not-match? @name "^(undefined|null|this|arguments)$"))

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (spread_element (identifier) @name @reference.callback)) @arg.list
  (#not-match? @name "^(undefined|null|this|arguments)$"))

(new_expression
  constructor: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (identifier) @name @reference.callback) @arg.list
  (#not-match? @name "^(undefined|null|this|arguments)$"))

(new_expression
  constructor: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (member_expression object: (_) @receiver property: (property_identifier) @name @reference.callback)) @arg.list
  (#not-match? @name "^(undefined|null|this|arguments)$"))

; g(function () { … }), g(x => …): the function flows to g's parameter
(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (arrow_function) @name @reference.value) @arg.list)

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (function_expression !name) @name @reference.value) @arg.list)

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (generator_function !name) @name @reference.value) @arg.list)

(call_expression
  function: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (function_expression name: (identifier) @name) @reference.value) @arg.list)

(new_expression
  constructor: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (arrow_function) @name @reference.value) @arg.list)

(new_expression
  constructor: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (function_expression !name) @name @reference.value) @arg.list)

(new_expression
  constructor: [(identifier) @arg.of (member_expression property: (property_identifier) @arg.of)]
  arguments: (arguments (function_expression name: (identifier) @name) @reference.value) @arg.list)

; h = f, const h = o.f, this.h = f, d[k] = f, h = d[k], h = c ? f : g, h = f || g
(variable_declarator
  name: (identifier) @import.alias
  value: [
    (identifier) @name @reference.value
    (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.value
    (subscript_expression object: [(identifier) (member_expression)]) @name @reference.value
    (ternary_expression consequence: (identifier) @name @reference.value)
    (ternary_expression alternative: (identifier) @name @reference.value)
    (binary_expression [(identifier) @name @reference.value])
  ]
  (#not-match? @name "^(undefined|null|arguments)$"))

(assignment_expression
  left: [(identifier) (member_expression) (subscript_expression)] @import.alias
  right: [
    (identifier) @name @reference.value
    (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.value
    (subscript_expression object: [(identifier) (member_expression)]) @name @reference.value
    (ternary_expression consequence: (identifier) @name @reference.value)
    (ternary_expression alternative: (identifier) @name @reference.value)
    (binary_expression [(identifier) @name @reference.value])
  ]
  (#not-match? @name "^(undefined|null|arguments)$"))

; Dog.prototype = Object.create(Animal.prototype), Object.setPrototypeOf(Dog.prototype,
; Animal.prototype): Dog's instances find what Animal's do (the value flow keeps the
; prototype Dog's go on to)
(assignment_expression
  left: (member_expression property: (property_identifier) @_proto) @import.alias
  right: (call_expression
    function: (member_expression object: (identifier) @_object property: (property_identifier) @_create)
    arguments: (arguments .
      (member_expression
        object: (_) @receiver
        property: (property_identifier) @name) @reference.value .))
  (#eq? @_proto "prototype")
  (#eq? @_object "Object")
  (#eq? @_create "create")
  (#eq? @name "prototype"))

(call_expression
  function: (member_expression object: (identifier) @_object property: (property_identifier) @_set)
  arguments: (arguments .
    (member_expression property: (property_identifier) @_proto) @import.alias .
    (member_expression
      object: (_) @receiver
      property: (property_identifier) @name) @reference.value .)
  (#eq? @_object "Object")
  (#eq? @_set "setPrototypeOf")
  (#eq? @_proto "prototype")
  (#eq? @name "prototype"))

; Foo.prototype.bar = function () { … }, obj.m = () => …: the function, defined above
; under the property's name, is stored there too
(assignment_expression
  left: (member_expression
    property: (property_identifier) @name) @import.alias
  right: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]
  (#not-eq? @name "exports")) @reference.value

; d[k] = function () { … } (stored under a name, `o.f = function …` defines `f`)
(assignment_expression
  left: (subscript_expression) @import.alias
  right: [
    (arrow_function)
    (function_expression !name)
  ] @name @reference.value)

; const h = []: a container filled later (`h.push(f)`, `h[k] = f`) is a variable of this
; scope
(variable_declarator
  name: (identifier) @import.alias
  value: (array) @name @reference.value
  (#match? @name "^\\[\\s*\\]$"))

; const o = {…}, o = {…}, Base.prototype = {…}: an object literal is a record of its own
; (a value named by its `{`), whose entries are told apart by key
(variable_declarator
  name: (identifier) @import.alias
  value: (object "{" @name) @reference.value)

(assignment_expression
  left: [(identifier) (member_expression) (subscript_expression)] @import.alias
  right: (object "{" @name) @reference.value)

; h = [f, g]: the container holds them; o = {a: f, g, m() {…}, k: () => …}: the record
; holds each under its key (`o.a`); a computed key (`[k]: f`) puts it in the record as a
; whole
(variable_declarator
  name: (identifier) @import.alias
  value: [
    (array [
      (identifier) @name @reference.value
      (member_expression object: (_) @receiver property: (property_identifier) @name @reference.value)
      (arrow_function) @name @reference.value
      (function_expression !name) @name @reference.value
      (function_expression name: (identifier) @name) @reference.value
    ])
    (object [
      (pair key: [(property_identifier) (string (string_fragment))] @flow.key value: (identifier) @name @reference.value)
      (pair
        key: [(property_identifier) (string (string_fragment))] @flow.key
        value: (member_expression object: (_) @receiver property: (property_identifier) @name @reference.value))
      (pair key: (property_identifier) @name @flow.key value: [(arrow_function) (function_expression) (generator_function)]) @reference.value
      (pair key: (computed_property_name) value: (identifier) @name @reference.value)
      (shorthand_property_identifier) @name @flow.key @reference.value
      (method_definition name: (property_identifier) @name @flow.key) @reference.value
    ])
  ]
  (#not-match? @name "^(undefined|null|arguments)$"))

(assignment_expression
  left: [(identifier) (member_expression) (subscript_expression)] @import.alias
  right: [
    (array [
      (identifier) @name @reference.value
      (member_expression object: (_) @receiver property: (property_identifier) @name @reference.value)
      (arrow_function) @name @reference.value
      (function_expression !name) @name @reference.value
      (function_expression name: (identifier) @name) @reference.value
    ])
    (object [
      (pair key: [(property_identifier) (string (string_fragment))] @flow.key value: (identifier) @name @reference.value)
      (pair
        key: [(property_identifier) (string (string_fragment))] @flow.key
        value: (member_expression object: (_) @receiver property: (property_identifier) @name @reference.value))
      (pair key: (property_identifier) @name @flow.key value: [(arrow_function) (function_expression) (generator_function)]) @reference.value
      (pair key: (computed_property_name) value: (identifier) @name @reference.value)
      (shorthand_property_identifier) @name @flow.key @reference.value
      (method_definition name: (property_identifier) @name @flow.key) @reference.value
    ])
  ]
  (#not-match? @name "^(undefined|null|arguments)$"))

; const child = Object.create(proto), X.prototype = Object.create(o): the new object finds
; what `proto` holds (taken as `proto` itself)
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (member_expression object: (identifier) @_object property: (property_identifier) @_create)
    arguments: (arguments . [
      (identifier) @name @reference.value
      (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.value
    ] .))
  (#eq? @_object "Object")
  (#eq? @_create "create"))

(assignment_expression
  left: [(identifier) (member_expression)] @import.alias
  right: (call_expression
    function: (member_expression object: (identifier) @_object property: (property_identifier) @_create)
    arguments: (arguments . (identifier) @name @reference.value .))
  (#eq? @_object "Object")
  (#eq? @_create "create"))

; return f, return o.f, return function () { … }, x => f: what the function returns
([
  (return_statement [
    (identifier) @name @reference.value
    (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.value
    (arrow_function) @name @reference.value
    (function_expression !name) @name @reference.value
    (function_expression name: (identifier) @name) @reference.value
    (array [
      (identifier) @name @reference.value
      (member_expression object: (_) @receiver property: (property_identifier) @name @reference.value)
    ])
  ])
  (arrow_function body: [
    (identifier) @name @reference.value
    (member_expression object: (_) @receiver property: (property_identifier) @name) @reference.value
    (arrow_function) @name @reference.value
    (function_expression !name) @name @reference.value
    (function_expression name: (identifier) @name) @reference.value
  ])
] @flow.return
  (#not-match? @name "^(undefined|null|arguments|this)$"))

; (function () { … })(): a function called where it is defined
(call_expression
  function: (parenthesized_expression [
    (arrow_function)
    (function_expression !name)
  ] @name)) @reference.call

(call_expression
  function: (parenthesized_expression
    (function_expression name: (identifier) @name))) @reference.call

; f()(…), d[k](…), fs[0](…): a call of a call's result or of an element; the name is the
; expression as written
(call_expression
  function: [(call_expression) (subscript_expression)] @name) @reference.call

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; f(), Foo()
(call_expression
  function: (identifier) @name
  (#not-eq? @name "require")) @reference.call

; obj.m(), this.m(), this.#m(), super.m(), Foo.bar.baz()
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [
      (property_identifier)
      (private_property_identifier)
    ] @name)) @reference.call

; super(…) in a constructor
(call_expression
  function: (super) @name) @reference.call

; new Foo(), new ns.Foo()
(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; @decorator
(decorator
  (identifier) @name) @reference.call

(decorator
  (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; <Component …/> and <ns.Component …/> (lower-case tags are HTML elements)
(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name
; ---------------------------------------------------------------------------

(arguments
  (identifier) @name @reference.callback)

(arguments
  (member_expression
    object: (_) @receiver
    property: [
      (property_identifier)
      (private_property_identifier)
    ] @name @reference.callback))

; <button onClick={handleClick}> and onClick={this.handleClick}
(jsx_attribute
  (jsx_expression
    (identifier) @name @reference.callback))

(jsx_attribute
  (jsx_expression
    (member_expression
      object: (_) @receiver
      property: [
        (property_identifier)
        (private_property_identifier)
      ] @name @reference.callback)))

; ---------------------------------------------------------------------------
; Types: superclasses
; ---------------------------------------------------------------------------

(class_heritage
  (identifier) @name @reference.type)

(class_heritage
  (member_expression
    object: (_) @receiver
    property: (property_identifier) @name @reference.type))
