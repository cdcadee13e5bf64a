; Kotlin tags (tree-sitter-kotlin-ng 1.1). Specific patterns come before generic ones.
; kotlin-ng has few fields: keywords ("interface", "::", "this") are matched as anonymous
; nodes, and qualified names (`a.b.C`) are flat lists of identifiers.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(package_header
  (qualified_identifier) @name) @definition.package

; At top level kotlin-ng parses `@Ann(args)` on the line before a declaration as a
; separate annotated_expression, which hides the doc comment above it: take it here.
((block_comment) @doc
  .
  (annotated_expression)
  .
  (function_declaration
    name: (identifier) @name) @definition.function)

((block_comment) @doc
  .
  (annotated_expression)
  .
  (class_declaration
    "interface"
    name: (identifier) @name) @definition.interface)

((block_comment) @doc
  .
  (annotated_expression)
  .
  (class_declaration
    (modifiers
      (class_modifier "enum"))
    name: (identifier) @name) @definition.enum)

((block_comment) @doc
  .
  (annotated_expression)
  .
  (class_declaration
    name: (identifier) @name) @definition.class)

((block_comment) @doc
  .
  (annotated_expression)
  .
  (object_declaration
    name: (identifier) @name) @definition.object)

(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  (modifiers
    (class_modifier "enum"))
  name: (identifier) @name) @definition.enum

(class_declaration
  name: (identifier) @name) @definition.class

; `object Foo` (a singleton). Companion objects are not symbols: their members are
; called through the class (`Polygon.register()`), so they qualify as class members.
(object_declaration
  name: (identifier) @name) @definition.object

(function_declaration
  name: (identifier) @name) @definition.function

; `constructor(...) : this(...)` has no name of its own
(secondary_constructor
  "constructor" @name) @definition.constructor

; `init { ... }` blocks run on construction: a callable scope for the calls inside
(anonymous_initializer
  "init" @name) @definition.method

(type_alias
  type: (identifier) @name) @definition.type

(enum_entry
  (identifier) @name) @definition.constant

; `const val X = ...` anywhere
(property_declaration
  (modifiers
    (property_modifier "const"))
  (variable_declaration
    (identifier) @name)) @definition.constant

; read-only UPPER_CASE properties at top level or in (companion) objects
(source_file
  (property_declaration
    "val"
    (variable_declaration
      (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(object_declaration
  (class_body
    (property_declaration
      "val"
      (variable_declaration
        (identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(companion_object
  (class_body
    (property_declaration
      "val"
      (variable_declaration
        (identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

; ---------------------------------------------------------------------------
; Calls (constructor calls `Foo()` are plain calls)
; ---------------------------------------------------------------------------

; val p = Order(), val p = repo.find(): the call's @import.alias is the variable that holds
; its result (the resolver types calls on it). Same names and receivers as the generic
; patterns below, which they precede.
(property_declaration
  (variable_declaration . (identifier) @import.alias .)
  [
    (call_expression
      .
      (navigation_expression
        (_) @receiver
        .
        ["." "?."]
        .
        (identifier) @name .)) @reference.call
    (call_expression
      .
      (identifier) @name) @reference.call
  ])

; obj.m(), obj?.m(), this.m(), super.m(), Type.m(), a.b.m(), with or without a trailing lambda
(call_expression
  .
  (navigation_expression
    (_) @receiver
    .
    ["." "?."]
    .
    (identifier) @name .)) @reference.call

; m()
(call_expression
  .
  (identifier) @name) @reference.call

; `!isEmpty()`, `-size()`: the grammar reads a prefix operator as applying to the callee (the
; extractor drops it from a receiver's text, `!a.isEmpty()`)
(call_expression
  .
  (unary_expression
    argument: (identifier) @name)
  .
  (value_arguments)) @reference.call

; `a to b`, `1 until n`: infix function calls
((infix_expression
  .
  (_) @receiver
  .
  (identifier) @name
  .
  (_) .) @reference.call
  (#not-match? @name "^(fun|class|interface|object|val|var|typealias)$"))

; super class constructor in the header: `class Square : Polygon("square")`
(delegation_specifier
  (constructor_invocation
    (user_type
      (identifier) @name
      .
      (type_arguments)? .)) @reference.call)

; `constructor() : this(...)` / `: super(...)`: the name is the keyword
(constructor_delegation_call
  ["this" "super"] @name) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: callable references passed as arguments
; ---------------------------------------------------------------------------

; Type::method, obj::method, this::method (not `Foo::class`)
((value_argument
  (navigation_expression
    (_) @receiver
    .
    "::"
    .
    (identifier) @name .) @reference.callback)
  (#not-eq? @name "class"))

; ::function, Type<T>::method
((value_argument
  (callable_reference
    (_)? @receiver
    .
    "::"
    .
    (identifier) @name .) @reference.callback)
  (#not-eq? @name "class"))

; ---------------------------------------------------------------------------
; Imports. qualified_identifier is flat, so @import.module is the whole path as
; written (`kotlin.math.sqrt`) and @name its last segment.
; ---------------------------------------------------------------------------

; import a.b.*
(import
  (qualified_identifier) @name @import.module
  "*") @reference.import

; import a.b.C as D
(import
  (qualified_identifier
    (identifier) @name .) @import.module
  (identifier) @import.alias) @reference.import

; import a.b.C (the alias-less, star-less form: matches complete in order, so the
; shorter pattern must not also match the forms above)
((import
  (qualified_identifier
    (identifier) @name .) @import.module .) @reference.import
  (#not-match? @reference.import "\\.\\*"))

; ---------------------------------------------------------------------------
; Type uses: superclasses and implemented interfaces (also of object literals)
; ---------------------------------------------------------------------------

(delegation_specifier
  [
    (user_type (identifier) @name . (type_arguments)? .)
    (constructor_invocation
      (user_type (identifier) @name . (type_arguments)? .))
    (explicit_delegation
      (user_type (identifier) @name . (type_arguments)? .))
  ]) @reference.type

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a parameter, a
; constructor's `val`, a property or local, a `for` variable): `fun persist(user: User)`,
; `val o: Order = …; o.total()`; a nested type by its qualifier (`val body: CodeBlock.Builder`).
; ---------------------------------------------------------------------------

(parameter
  (identifier) @import.alias
  .
  [
    (user_type . (identifier) @name .)
    (user_type . (identifier) @name . (type_arguments) .)
    (nullable_type (user_type . (identifier) @name .))
    (nullable_type (user_type . (identifier) @name . (type_arguments) .))
    (user_type . (identifier)+ @receiver . (identifier) @name .)
    (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .)
    (nullable_type (user_type . (identifier)+ @receiver . (identifier) @name .))
    (nullable_type (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .))
  ]) @reference.type

(class_parameter
  (identifier) @import.alias
  .
  [
    (user_type . (identifier) @name .)
    (user_type . (identifier) @name . (type_arguments) .)
    (nullable_type (user_type . (identifier) @name .))
    (nullable_type (user_type . (identifier) @name . (type_arguments) .))
    (user_type . (identifier)+ @receiver . (identifier) @name .)
    (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .)
    (nullable_type (user_type . (identifier)+ @receiver . (identifier) @name .))
    (nullable_type (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .))
  ]) @reference.type

(variable_declaration
  (identifier) @import.alias
  .
  [
    (user_type . (identifier) @name .)
    (user_type . (identifier) @name . (type_arguments) .)
    (nullable_type (user_type . (identifier) @name .))
    (nullable_type (user_type . (identifier) @name . (type_arguments) .))
    (user_type . (identifier)+ @receiver . (identifier) @name .)
    (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .)
    (nullable_type (user_type . (identifier)+ @receiver . (identifier) @name .))
    (nullable_type (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .))
  ]) @reference.type

; `catch (e: UsageError)`: `e` is a `UsageError` in the block.
(catch_block
  (identifier) @import.alias
  .
  [
    (user_type . (identifier) @name .)
    (user_type . (identifier)+ @receiver . (identifier) @name .)
  ]) @reference.type

; Read from a property: `val command = context.command` (the variable is of the property's
; type, which the resolver reads from the receiver's class).
(property_declaration
  (variable_declaration . (identifier) @import.alias .)
  (navigation_expression
    (_) @receiver
    .
    ["." "?."]
    .
    (identifier) @name .) @reference.type)

; `for (c in commands)`: `c` is an element of `commands` (the resolver reads its declared
; container type's argument: `List<Command>`).
(for_statement
  (variable_declaration . (identifier) @import.alias)
  .
  (_) @name @reference.iteration)

; Smart casts: in a `when (o)` entry `is Foo -> …`, and in the branch of `if (o is Foo)`, `o`
; is a `Foo` (an entry of several types gives `o` each, on the same lines, and the resolver
; takes none of them).
(when_expression
  (when_subject (identifier) @import.alias)
  (when_entry
    condition: (type_test
      [
        (user_type . (identifier) @name .)
        (user_type . (identifier) @name . (type_arguments) .)
        (user_type . (identifier)+ @receiver . (identifier) @name .)
        (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .)
      ])) @binding.scope) @reference.type

(if_expression
  condition: (is_expression
    left: (identifier) @import.alias
    right: [
      (user_type . (identifier) @name .)
      (user_type . (identifier) @name . (type_arguments) .)
      (user_type . (identifier)+ @receiver . (identifier) @name .)
      (user_type . (identifier)+ @receiver . (identifier) @name . (type_arguments) .)
    ])
  .
  (_) @binding.scope) @reference.type
