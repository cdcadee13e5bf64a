; Swift tags (tree-sitter-swift 0.7). Specific patterns come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(class_declaration
  declaration_kind: "class"
  name: (type_identifier) @name) @definition.class

(class_declaration
  declaration_kind: "actor"
  name: (type_identifier) @name) @definition.actor

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name) @definition.enum

; `extension Point: P { ... }`: a class-like symbol named after the extended type, so its
; members qualify as `Point.member` and its conformances are type uses inside it
(class_declaration
  declaration_kind: "extension"
  name: (user_type
    (type_identifier) @name .)) @definition.extension

(class_declaration
  declaration_kind: "extension"
  name: (user_type
    (type_identifier) @name
    .
    (type_arguments) .)) @definition.extension

(protocol_declaration
  name: (type_identifier) @name) @definition.protocol

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  name: "init" @name) @definition.constructor

(deinit_declaration
  "deinit" @name) @definition.destructor

(subscript_declaration
  "subscript" @name) @definition.method

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(associatedtype_declaration
  name: (type_identifier) @name) @definition.type

(macro_declaration
  (simple_identifier) @name) @definition.macro

; `case red = "r"`, `case circle(Double)`: the whole entry. In `case green, blue` each
; name is its own definition (entries with one range would nest in each other).
(enum_entry
  .
  name: (simple_identifier) @name .) @definition.constant

(enum_entry
  .
  name: (simple_identifier) @name
  .
  [
    raw_value: (_)
    data_contents: (_)
  ] .) @definition.constant

(enum_entry
  name: (simple_identifier) @name @definition.constant
  name: (simple_identifier))

(enum_entry
  name: (simple_identifier)
  name: (simple_identifier) @name @definition.constant)

; computed properties run code: `var description: String { ... }` is a getter
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property)) @definition.getter

; `static let` members and top-level `let`s are constants. With one name the whole
; declaration is the definition; in `let a = 1, b = 2` each name's pattern is (two
; definitions with one range would nest in each other).
(property_declaration
    (modifiers
      (property_modifier "static"))
    (value_binding_pattern
      mutability: "let")
    .
    name: (pattern
      bound_identifier: (simple_identifier) @name)
    .
    value: (_) .) @definition.constant

(property_declaration
    (modifiers
      (property_modifier "static"))
    (value_binding_pattern
      mutability: "let")
    .
    name: (pattern
      bound_identifier: (simple_identifier) @name)
    .
    (type_annotation)
    .
    value: (_) .) @definition.constant

(property_declaration
    (modifiers
      (property_modifier "static"))
    (value_binding_pattern
      mutability: "let")
    name: (pattern
      bound_identifier: (simple_identifier) @name) @definition.constant
    name: (pattern))

(property_declaration
    (modifiers
      (property_modifier "static"))
    (value_binding_pattern
      mutability: "let")
    name: (pattern)
    name: (pattern
      bound_identifier: (simple_identifier) @name) @definition.constant)

(source_file
  (property_declaration
    (value_binding_pattern
      mutability: "let")
    .
    name: (pattern
      bound_identifier: (simple_identifier) @name)
    .
    value: (_) .) @definition.constant)

(source_file
  (property_declaration
    (value_binding_pattern
      mutability: "let")
    .
    name: (pattern
      bound_identifier: (simple_identifier) @name)
    .
    (type_annotation)
    .
    value: (_) .) @definition.constant)

(source_file
  (property_declaration
    (value_binding_pattern
      mutability: "let")
    name: (pattern
      bound_identifier: (simple_identifier) @name) @definition.constant
    name: (pattern)))

(source_file
  (property_declaration
    (value_binding_pattern
      mutability: "let")
    name: (pattern)
    name: (pattern
      bound_identifier: (simple_identifier) @name) @definition.constant))

; ---------------------------------------------------------------------------
; Calls. A call has `(...)` arguments or a trailing closure; `xs[i]` is parsed as a
; call_expression too, with `[...]` arguments, and is not a call.
; ---------------------------------------------------------------------------

; let p = Order(), var r = repo.find(): the call's @import.alias is the variable that holds
; its result (the resolver types calls on it). Same names and receivers as the generic
; patterns below, which they precede.
(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @import.alias)
  value: [
    (call_expression
      (navigation_expression
        target: _ @receiver
        suffix: (navigation_suffix
          suffix: (simple_identifier) @name))
      (call_suffix
        [(value_arguments "(") (lambda_literal)])) @reference.call
    (call_expression
      (simple_identifier) @name
      (call_suffix
        [(value_arguments "(") (lambda_literal)])) @reference.call
  ])

; obj.m(), self.m(), super.m(), super.init(), Type.m(), a.b.m()
(call_expression
  (navigation_expression
    target: _ @receiver
    suffix: (navigation_suffix
      suffix: (simple_identifier) @name))
  (call_suffix
    [(value_arguments "(") (lambda_literal)])) @reference.call

; m(), Type(...) (initializer calls are plain calls)
(call_expression
  (simple_identifier) @name
  (call_suffix
    [(value_arguments "(") (lambda_literal)])) @reference.call

; tree-sitter-swift parses `a + f(x)` as `(a + f)(x)` (also `*` and prefix `-`): the
; callee is the rightmost operand
(call_expression
  [
    (additive_expression
      rhs: (navigation_expression
        target: _ @receiver
        suffix: (navigation_suffix
          suffix: (simple_identifier) @name)))
    (multiplicative_expression
      rhs: (navigation_expression
        target: _ @receiver
        suffix: (navigation_suffix
          suffix: (simple_identifier) @name)))
    (prefix_expression
      target: (navigation_expression
        target: _ @receiver
        suffix: (navigation_suffix
          suffix: (simple_identifier) @name)))
  ]
  (call_suffix
    [(value_arguments "(") (lambda_literal)])) @reference.call

(call_expression
  [
    (additive_expression
      rhs: (simple_identifier) @name)
    (multiplicative_expression
      rhs: (simple_identifier) @name)
    (prefix_expression
      target: (simple_identifier) @name)
  ]
  (call_suffix
    [(value_arguments "(") (lambda_literal)])) @reference.call

; Array<Int>(), [Int]() with an explicit generic type
(constructor_expression
  constructed_type: [
    (user_type (type_identifier) @name .)
    (user_type (type_identifier) @name . (type_arguments) .)
  ]) @reference.call

; #selector(...), #Preview { ... }, freestanding macros
(macro_invocation
  (simple_identifier) @name) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name as arguments
; ---------------------------------------------------------------------------

; (not the index of a subscript `xs[i]`, whose arguments are in brackets)
(value_arguments
  "("
  (value_argument
    value: (simple_identifier) @name) @reference.callback)

(value_arguments
  "("
  (value_argument
    value: (navigation_expression
      target: _ @receiver
      suffix: (navigation_suffix
        suffix: (simple_identifier) @name))) @reference.callback)

; ---------------------------------------------------------------------------
; Imports. The module path is one flat `identifier`: `import struct A.B` imports B
; from A (@import.module is then the whole path as written).
; ---------------------------------------------------------------------------

(import_declaration
  ["typealias" "struct" "class" "enum" "protocol" "let" "var" "func"]
  (identifier
    (simple_identifier) @name .) @import.module) @reference.import

((import_declaration
  (identifier) @name @import.module) @reference.import
  (#not-match? @reference.import "import\\s+(typealias|struct|class|enum|protocol|let|var|func)\\s"))

; ---------------------------------------------------------------------------
; Type uses: superclass, adopted protocols (also in extensions)
; ---------------------------------------------------------------------------

(inheritance_specifier
  inherits_from: [
    (user_type (type_identifier) @name .)
    (user_type (type_identifier) @name . (type_arguments) .)
  ]) @reference.type

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a parameter, a
; property or local, a `for` variable): `func persist(user: User)`, `let o: Order = …`.
; ---------------------------------------------------------------------------

(parameter
  (simple_identifier) @import.alias
  .
  [
    (user_type . (type_identifier) @name .)
    (user_type . (type_identifier) @name . (type_arguments) .)
  ]) @reference.type

(property_declaration
  name: (pattern bound_identifier: (simple_identifier) @import.alias)
  (type_annotation [
    (user_type . (type_identifier) @name .)
    (user_type . (type_identifier) @name . (type_arguments) .)
  ])) @reference.type

(for_statement
  item: (pattern bound_identifier: (simple_identifier) @import.alias)
  (type_annotation [
    (user_type . (type_identifier) @name .)
    (user_type . (type_identifier) @name . (type_arguments) .)
  ])) @reference.type
