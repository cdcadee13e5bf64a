; C# tags (tree-sitter-c-sharp 0.23). Specific patterns come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(namespace_declaration
  name: (_) @name) @definition.namespace

; `namespace A.B;` spans one line only: it does not enclose the file's types
(file_scoped_namespace_declaration
  name: (_) @name) @definition.namespace

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  "struct"
  name: (identifier) @name) @definition.struct

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

(local_function_statement
  name: (identifier) @name) @definition.function

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(destructor_declaration
  name: (identifier) @name) @definition.destructor

(operator_declaration
  operator: _ @name) @definition.operator

(property_declaration
  name: (identifier) @name) @definition.property

(enum_member_declaration
  name: (identifier) @name) @definition.constant

; const fields and static readonly fields (either order). With one declarator the
; whole field is the definition; in `const int A = 1, B = 2;` each declarator is (two
; definitions with one range would nest in each other).
(field_declaration
  (modifier "const")
  (variable_declaration
    type: (_)
    .
    (variable_declarator
      name: (identifier) @name) .)) @definition.constant

(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name) @definition.constant
    (variable_declarator)))

(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator)
    (variable_declarator
      name: (identifier) @name) @definition.constant))

(field_declaration
  (modifier "static")
  (modifier "readonly")
  (variable_declaration
    type: (_)
    .
    (variable_declarator
      name: (identifier) @name) .)) @definition.constant

(field_declaration
  (modifier "static")
  (modifier "readonly")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name) @definition.constant
    (variable_declarator)))

(field_declaration
  (modifier "static")
  (modifier "readonly")
  (variable_declaration
    (variable_declarator)
    (variable_declarator
      name: (identifier) @name) @definition.constant))

(field_declaration
  (modifier "readonly")
  (modifier "static")
  (variable_declaration
    type: (_)
    .
    (variable_declarator
      name: (identifier) @name) .)) @definition.constant

(field_declaration
  (modifier "readonly")
  (modifier "static")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name) @definition.constant
    (variable_declarator)))

(field_declaration
  (modifier "readonly")
  (modifier "static")
  (variable_declaration
    (variable_declarator)
    (variable_declarator
      name: (identifier) @name) @definition.constant))

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; var c = new Circle(): the call's @import.alias is the variable that holds its result (the
; resolver types calls on it). Same names and receivers as the generic pattern below, which
; it precedes.
(variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @import.alias
    (object_creation_expression
      type: [
        (identifier) @name
        (generic_name (identifier) @name)
        (qualified_name
          qualifier: (_) @receiver
          name: [
            (identifier) @name
            (generic_name (identifier) @name)
          ])
      ]) @reference.call))

; obj.M(), this.M(), base.M(), Type.M(), A.B.M(), obj.M<T>()
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [
      (identifier) @name
      (generic_name (identifier) @name)
    ])) @reference.call

; obj?.M()
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ]))) @reference.call

; M(), M<T>()  (`nameof(x)` is an operator, not a call)
((invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
  ]) @reference.call
  (#not-eq? @name "nameof"))

; global::A.M(), alias::M()
(invocation_expression
  function: (alias_qualified_name
    alias: (identifier) @receiver
    name: [
      (identifier) @name
      (generic_name (identifier) @name)
    ])) @reference.call

; new Foo(), new Foo<T>(), new A.B.Foo()
(object_creation_expression
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name
      qualifier: (_) @receiver
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])
  ]) @reference.call

; `: base(...)` / `: this(...)`: the name is the keyword
(constructor_initializer
  ["base" "this"] @name) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: method groups passed as arguments
; ---------------------------------------------------------------------------

; Methods are PascalCase by convention: camelCase arguments are locals and parameters.
((argument
  !name
  (identifier) @name) @reference.callback
  (#match? @name "^[A-Z]"))

((argument
  !name
  (member_access_expression
    expression: _ @receiver
    name: (identifier) @name)) @reference.callback
  (#match? @name "^[A-Z]"))

; Event subscriptions: `Click += OnClick`, `bus.Changed -= this.OnChanged`
((assignment_expression
  operator: ["+=" "-="]
  right: (identifier) @name) @reference.callback
  (#match? @name "^[A-Z]"))

((assignment_expression
  operator: ["+=" "-="]
  right: (member_access_expression
    expression: _ @receiver
    name: (identifier) @name)) @reference.callback
  (#match? @name "^[A-Z]"))

; ---------------------------------------------------------------------------
; Imports: `using` names a namespace (or, with `static` / an alias, a type)
; ---------------------------------------------------------------------------

; using Alias = A.B;
(using_directive
  name: (identifier) @import.alias
  (_) @name @import.module .) @reference.import

; using A.B;  using static A.B;  global using A.B;
(using_directive
  !name
  (_) @name @import.module .) @reference.import

; ---------------------------------------------------------------------------
; Type uses: base classes and interfaces (not generic constraints: a type use in a
; class header reads as inheritance)
; ---------------------------------------------------------------------------

(base_list
  [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])
    (primary_constructor_base_type
      type: [
        (identifier) @name
        (generic_name (identifier) @name)
        (qualified_name
          name: [
            (identifier) @name
            (generic_name (identifier) @name)
          ])
      ])
  ]) @reference.type

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a parameter, a
; local, a field, a `foreach` variable), so that calls on the variable find the type:
; `Order order = …; order.Save()`, `void Persist(User user)`.
; ---------------------------------------------------------------------------

(parameter
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name (identifier) @name)])
    (nullable_type type: [(identifier) @name (generic_name (identifier) @name) (predefined_type) @name])
    (predefined_type) @name
  ]
  name: (identifier) @import.alias) @reference.type

(variable_declaration
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name (identifier) @name)])
    (nullable_type type: [(identifier) @name (generic_name (identifier) @name) (predefined_type) @name])
    (predefined_type) @name
  ]
  (variable_declarator name: (identifier) @import.alias)) @reference.type

; A property is typed as a field is (`public Table Registry { get; }`: `s.Registry.Set(…)`).
(property_declaration
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name (identifier) @name)])
    (nullable_type type: [(identifier) @name (generic_name (identifier) @name) (predefined_type) @name])
    (predefined_type) @name
  ]
  name: (identifier) @import.alias) @reference.type

(foreach_statement
  type: [
    (identifier) @name
    (generic_name (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name (identifier) @name)])
    (nullable_type type: [(identifier) @name (generic_name (identifier) @name) (predefined_type) @name])
    (predefined_type) @name
  ]
  left: (identifier) @import.alias) @reference.type
