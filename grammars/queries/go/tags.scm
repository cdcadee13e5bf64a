; Go tags query.
; Order matters: the first pattern that matches a node wins, so specific patterns
; come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

; Functions
(function_declaration
  name: (identifier) @name) @definition.function

; Methods: the receiver type is a scope over the declaration, so the method is
; qualified by it (`Circle.Area`). The scope pattern must come before the method.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (generic_type type: (type_identifier) @name)
        (pointer_type (generic_type type: (type_identifier) @name))
      ]))) @scope

(method_declaration
  name: (field_identifier) @name) @definition.method

; Interface methods
(method_elem
  name: (field_identifier) @name) @definition.method

; Types. A declaration with a single spec is the definition node (so the comment
; above `type X ...` is its doc and the signature starts at `type`); in a
; parenthesized group each spec is.
(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type))
  .) @definition.struct

(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))
  .) @definition.interface

; (The other kinds are listed so that these patterns never match a struct or an
; interface: a pattern that completes earlier would win over the specific one.)
(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: [
      (type_identifier) (pointer_type) (slice_type) (array_type) (map_type)
      (channel_type) (function_type) (generic_type) (qualified_type)
      (negated_type) (parenthesized_type)
    ])
  .) @definition.type

(type_declaration
  .
  (type_alias name: (type_identifier) @name)
  .) @definition.type

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name
  type: [
      (type_identifier) (pointer_type) (slice_type) (array_type) (map_type)
      (channel_type) (function_type) (generic_type) (qualified_type)
      (negated_type) (parenthesized_type)
    ]) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

; Constants
(const_declaration
  .
  (const_spec
    name: (identifier) @name)
  .) @definition.constant

(const_spec
  name: (identifier) @name) @definition.constant

; Package-level variables (not those bound to a function literal, which are functions).
(source_file
  (var_declaration
    .
    (var_spec
      name: (identifier) @name
      !value)
    .) @definition.variable)

(source_file
  (var_declaration
    .
    (var_spec
      name: (identifier) @name
      value: (expression_list) @_value)
    .) @definition.variable
  (#not-match? @_value "^func\\s*\\("))

(source_file
  (var_declaration
    [
      (var_spec name: (identifier) @name !value) @definition.variable
      (var_spec_list (var_spec name: (identifier) @name !value) @definition.variable)
    ]))

(source_file
  (var_declaration
    [
      (var_spec name: (identifier) @name value: (expression_list) @_value) @definition.variable
      (var_spec_list
        (var_spec name: (identifier) @name value: (expression_list) @_value) @definition.variable)
    ])
  (#not-match? @_value "^func\\s*\\("))

; Function literals bound to a name: `add := func(...) {...}`, `var f = func() {...}`
(short_var_declaration
  left: (expression_list . (identifier) @name .)
  right: (expression_list . (func_literal) .)) @definition.function

(var_spec
  name: (identifier) @name
  value: (expression_list . (func_literal) .)) @definition.function

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; `import m "math"`, `import _ "x"`, `import . "x"`, `import "fmt"`:
; the name is the package path (the whole package is imported).
(import_spec
  name: (_)? @import.alias
  path: (_) @name @import.module) @reference.import

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a method
; receiver, a parameter, a variable, a struct field, a composite literal's variable),
; so that calls on the variable find the type. They come before the other type
; references, which match the same names. (A variable initialised by a call is the
; call's alias, under Calls.)
; ---------------------------------------------------------------------------

; v := x.(*Circle), v, ok := x.(Circle): the variable is of the asserted type
(short_var_declaration
  left: (expression_list . (identifier) @import.alias)
  right: (expression_list . (type_assertion_expression
    type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
    ]))) @reference.type

; k := make(Key, 0, n), p := new(Parser), var p = new(pkg.Parser): the variable is of
; that type
(short_var_declaration
  left: (expression_list . (identifier) @import.alias)
  right: (expression_list . (call_expression
    function: (identifier) @_builtin
    arguments: (argument_list . [
      (identifier) @name
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
    ])))
  (#any-of? @_builtin "make" "new")) @reference.type

(var_spec
  name: (identifier) @import.alias
  value: (expression_list . (call_expression
    function: (identifier) @_builtin
    arguments: (argument_list . [
      (identifier) @name
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
    ])))
  (#any-of? @_builtin "make" "new")) @reference.type

; switch v := x.(type) { case *Circle: v.Area() }: in a case of one type, v is of that
; type. A case of several types gives v its first and (the second pattern) its next on the
; same lines, and the resolver takes neither.
(type_switch_statement
  alias: (expression_list . (identifier) @import.alias)
  (type_case
    type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
    ]) @binding.scope
  (#not-match? @name "^(nil|bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

(type_switch_statement
  alias: (expression_list . (identifier) @import.alias)
  (type_case
    ","
    type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
    ]) @binding.scope) @reference.type

; func (c *Circle) M(), func f(s Shape, p *pkg.T)
(parameter_declaration
  name: (identifier) @import.alias
  type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      (generic_type type: (type_identifier) @name)
      (pointer_type (generic_type type: (type_identifier) @name))
      (generic_type type: (qualified_type package: (_) @receiver name: (type_identifier) @name))
    ]
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

; repos []*Repo, var repos []Repo: a slice of the type (`for _, r := range repos` and
; `repos[i]` give a `Repo`); byName map[string]*Repo: a map's elements are its values
(parameter_declaration
  name: (identifier) @import.alias
  type: [
    (slice_type element: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
    (array_type element: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
    (map_type value: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
  ] @binding.elements
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

(var_spec
  name: (identifier) @import.alias
  type: [
    (slice_type element: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
    (array_type element: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
    (map_type value: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
  ] @binding.elements
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

; var s Stack
(var_spec
  name: (identifier) @import.alias
  type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      (generic_type type: (type_identifier) @name)
      (pointer_type (generic_type type: (type_identifier) @name))
      (generic_type type: (qualified_type package: (_) @receiver name: (type_identifier) @name))
    ]
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

; struct fields: keys []Key, byName map[string]*Entry (`for _, k := range md.keys`,
; `md.byName[n]` give a `Key`, an `Entry`: a map's elements are its values)
(field_declaration
  name: (field_identifier) @import.alias
  type: [
    (slice_type element: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
    (array_type element: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
    (map_type value: [
        (type_identifier) @name
        (pointer_type (type_identifier) @name)
        (qualified_type package: (_) @receiver name: (type_identifier) @name)
        (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      ])
  ] @binding.elements
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

; struct fields: store *Store
(field_declaration
  name: (field_identifier) @import.alias
  type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      (generic_type type: (type_identifier) @name)
      (pointer_type (generic_type type: (type_identifier) @name))
      (generic_type type: (qualified_type package: (_) @receiver name: (type_identifier) @name))
    ]
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr|any)$")) @reference.type

; c := Circle{…}, p := &Square{…}, var c = Circle{…}
(short_var_declaration
  left: (expression_list . (identifier) @import.alias)
  right: (expression_list . [
      (composite_literal
        type: [
          (type_identifier) @name
          (qualified_type package: (_) @receiver name: (type_identifier) @name)
          (generic_type type: (type_identifier) @name)
        ])
      (unary_expression
        operand: (composite_literal
          type: [
            (type_identifier) @name
            (qualified_type package: (_) @receiver name: (type_identifier) @name)
            (generic_type type: (type_identifier) @name)
          ]))
    ])) @reference.type

(var_spec
  name: (identifier) @import.alias
  !type
  value: (expression_list . [
      (composite_literal
        type: [
          (type_identifier) @name
          (qualified_type package: (_) @receiver name: (type_identifier) @name)
          (generic_type type: (type_identifier) @name)
        ])
      (unary_expression
        operand: (composite_literal
          type: [
            (type_identifier) @name
            (qualified_type package: (_) @receiver name: (type_identifier) @name)
            (generic_type type: (type_identifier) @name)
          ]))
    ])) @reference.type

; ---------------------------------------------------------------------------
; Type references: embedded structs and interfaces (Go's inheritance)
; ---------------------------------------------------------------------------

(field_declaration_list
  (field_declaration
    !name
    type: [
      (type_identifier) @name
      (pointer_type (type_identifier) @name)
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))
      (generic_type type: (type_identifier) @name)
    ]) @reference.type)

(interface_type
  (type_elem
    .
    [
      (type_identifier) @name
      (qualified_type package: (_) @receiver name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
    ]
    .) @reference.type)

; Composite literals `Circle{R: 1}`, `pkg.T{}`: a use of the type.
(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type package: (_) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (qualified_type package: (_) @receiver name: (type_identifier) @name))
  ]) @reference.type

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; `c := NewCircle(…)`, `conn, err := db.Open(…)`, `var c = pkg.New(…)`: the call's
; @import.alias is the (first) variable that holds its result (the resolver types calls
; on it). Same names and receivers as the generic patterns below, which they precede.
([
  (short_var_declaration
    left: (expression_list . (identifier) @import.alias)
    right: (expression_list
      .
      (call_expression
        function: [
          (identifier) @name
          (selector_expression operand: (_) @receiver field: (field_identifier) @name)
        ]) @reference.call))
  (var_spec
    name: (identifier) @import.alias
    value: (expression_list
      .
      (call_expression
        function: [
          (identifier) @name
          (selector_expression operand: (_) @receiver field: (field_identifier) @name)
        ]) @reference.call))
])

; `obj.M()`, `pkg.F()`, `c.Base.M()`
(call_expression
  function: [
    (selector_expression
      operand: (_) @receiver
      field: (field_identifier) @name)
    (parenthesized_expression
      (selector_expression
        operand: (_) @receiver
        field: (field_identifier) @name))
  ]) @reference.call

; `f()`, `Map[int](xs)`
(call_expression
  function: [
    (identifier) @name
    (parenthesized_expression (identifier) @name)
  ]) @reference.call

; Generic calls the grammar cannot tell from conversions: `pkg.F[int](x)`, `G[int, string](x)`
(type_conversion_expression
  type: (generic_type
    type: (qualified_type
      package: (_) @receiver
      name: (type_identifier) @name))) @reference.call

(type_conversion_expression
  type: (generic_type
    type: (type_identifier) @name)) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions and method values passed as arguments
; ---------------------------------------------------------------------------

; `apply(c.Area)`, `http.HandleFunc("/", srv.handle)`, `sort.Slice(xs, pkg.Less)`
(argument_list
  (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name) @reference.callback)

; `sort.Slice(xs, byArea)`
(argument_list
  (identifier) @name @reference.callback)

; for _, r := range repos: `r` is an element of `repos`
(range_clause
  left: (expression_list (_) . (identifier) @import.alias .)
  right: (_) @name) @reference.iteration
