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
