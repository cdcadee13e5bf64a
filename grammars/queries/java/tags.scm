; Java tags (tree-sitter-java 0.23). Specific patterns come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(package_declaration
  [(identifier) (scoped_identifier)] @name) @definition.package

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

(enum_constant
  name: (identifier) @name) @definition.constant

; static final fields, and interface fields (implicitly static final). With one
; declarator the whole declaration is the definition; in `int A = 1, B = 2;` each
; declarator is (two definitions with one range would nest in each other).
((field_declaration
  (modifiers) @_mods
  .
  type: (_)
  .
  declarator: (variable_declarator
    name: (identifier) @name) .) @definition.constant
  (#match? @_mods "\\bstatic\\b")
  (#match? @_mods "\\bfinal\\b"))

((field_declaration
  (modifiers) @_mods
  declarator: (variable_declarator
    name: (identifier) @name) @definition.constant
  declarator: (variable_declarator))
  (#match? @_mods "\\bstatic\\b")
  (#match? @_mods "\\bfinal\\b"))

((field_declaration
  (modifiers) @_mods
  declarator: (variable_declarator)
  declarator: (variable_declarator
    name: (identifier) @name) @definition.constant)
  (#match? @_mods "\\bstatic\\b")
  (#match? @_mods "\\bfinal\\b"))

(constant_declaration
  type: (_)
  .
  declarator: (variable_declarator
    name: (identifier) @name) .) @definition.constant

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name) @definition.constant
  declarator: (variable_declarator))

(constant_declaration
  declarator: (variable_declarator)
  declarator: (variable_declarator
    name: (identifier) @name) @definition.constant)

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; var c = new Circle(); var c = make(); var c = a.make(): the call's @import.alias is
; the variable that holds its result (the resolver types calls on it). Same names and
; receivers as the generic patterns below, which they precede.
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @import.alias
    value: [
      (object_creation_expression
        type: [
          (type_identifier) @name
          (generic_type (type_identifier) @name)
        ]) @reference.call
      (method_invocation
        object: (_) @receiver
        name: (identifier) @name) @reference.call
      (method_invocation
        !object
        name: (identifier) @name) @reference.call
    ]))
  (#eq? @_var "var"))

; Reflection and method handles: a method looked up by its name on a class literal is
; called (`Demo.class.getDeclaredMethod("target").invoke(…)`, `lookup.findVirtual(Demo.class,
; "target", type).invokeExact(…)`, `lookup.findConstructor(Demo.class, type)`): the name is
; the string's, the receiver the class (the lookup's arguments are not the call's: the
; reference is the string, whose argument count is not known)
(method_invocation
  object: (class_literal (type_identifier) @receiver)
  name: (identifier) @_get
  arguments: (argument_list . (string_literal (string_fragment) @name) @reference.call)
  (#any-of? @_get "getMethod" "getDeclaredMethod"))

(method_invocation
  name: (identifier) @_find
  arguments: (argument_list .
    (class_literal (type_identifier) @receiver) .
    (string_literal (string_fragment) @name) @reference.call)
  (#any-of? @_find "findVirtual" "findStatic" "findSpecial"))

(method_invocation
  name: (identifier) @_find
  arguments: (argument_list . (class_literal (type_identifier) @name) @reference.call)
  (#eq? @_find "findConstructor"))

; obj.m(), this.m(), super.m(), Type.m(), a.b.m()
(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call

; m()
(method_invocation
  !object
  name: (identifier) @name) @reference.call

; new Foo(), new Foo<>(), new a.b.Foo(), new Outer.Inner()
(object_creation_expression
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier
      (_) @receiver
      .
      (type_identifier) @name .)
    (generic_type
      (scoped_type_identifier
        (_) @receiver
        .
        (type_identifier) @name .))
  ]) @reference.call

; super(...) / this(...) in a constructor: the name is the keyword
(explicit_constructor_invocation
  constructor: (_) @name) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: method references passed as arguments
; ---------------------------------------------------------------------------

; Supplier<T> s = obj::m, Runnable r = Foo::new: the variable holds the method (a call of
; the functional interface's method on it calls that method)
(local_variable_declaration
  declarator: (variable_declarator
    name: (identifier) @import.alias
    value: (method_reference
      .
      [(identifier) (type_identifier)] @name
      "new") @reference.value))

(local_variable_declaration
  declarator: (variable_declarator
    name: (identifier) @import.alias
    value: (method_reference
      .
      (_) @receiver
      .
      (identifier) @name .) @reference.value))

; Foo::new
(argument_list
  (method_reference
    .
    [(identifier) (type_identifier)] @name
    "new") @reference.callback)

(argument_list
  (method_reference
    .
    [(scoped_type_identifier (type_identifier) @name .)
     (generic_type (type_identifier) @name)]
    "new") @reference.callback)

; Foo::bar, obj::bar, this::bar, super::bar
(argument_list
  (method_reference
    .
    (_) @receiver
    .
    (identifier) @name .) @reference.callback)

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; import a.b.*;  (the whole package)
(import_declaration
  [(identifier) (scoped_identifier)] @name @import.module
  (asterisk)) @reference.import

; import a.b.C;  import static a.b.C.m;
(import_declaration
  (scoped_identifier
    scope: (_) @import.module
    name: (identifier) @name) .) @reference.import

(import_declaration
  (identifier) @name @import.module .) @reference.import

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a local,
; a parameter, a field, a loop variable), so that calls on the variable find the type.
; ---------------------------------------------------------------------------

; Circle c = …; (a primitive too, `char c`: a call's argument of that type picks an overload)
(local_variable_declaration
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
    (integral_type) @name
    (floating_point_type) @name
    (boolean_type) @name
  ]
  declarator: (variable_declarator
    name: (identifier) @import.alias)
  (#not-eq? @name "var")) @reference.type

(formal_parameter
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
    (integral_type) @name
    (floating_point_type) @name
    (boolean_type) @name
  ]
  name: (identifier) @import.alias) @reference.type

(field_declaration
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
    (integral_type) @name
    (floating_point_type) @name
    (boolean_type) @name
  ]
  declarator: (variable_declarator
    name: (identifier) @import.alias)) @reference.type

; o instanceof Circle c (a pattern variable)
(instanceof_expression
  right: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  ]
  name: (identifier) @import.alias) @reference.type

; A type test narrows its variable in the `if`'s branch (not in its `else`): `if (o
; instanceof Circle) o.area()`, `Circle.class.isInstance(o)`, `o.getClass() == Circle.class`,
; `Circle.class.isAssignableFrom(o.getClass())`, alone or first of an `&&`
(if_statement
  condition: (parenthesized_expression
    [
      (instanceof_expression left: (identifier) @import.alias right: [
        (type_identifier) @name
        (generic_type (type_identifier) @name)
        (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
        (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
      ] !name)
      (binary_expression
        left: (instanceof_expression left: (identifier) @import.alias right: [
        (type_identifier) @name
        (generic_type (type_identifier) @name)
        (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
        (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
      ] !name)
        operator: "&&")
    ])
  consequence: (_) @binding.scope) @reference.type

(if_statement
  condition: (parenthesized_expression
    (method_invocation
      object: (class_literal (type_identifier) @name)
      name: (identifier) @_test
      arguments: (argument_list . (identifier) @import.alias .)))
  consequence: (_) @binding.scope
  (#eq? @_test "isInstance")) @reference.type

(if_statement
  condition: (parenthesized_expression
    (method_invocation
      object: (class_literal (type_identifier) @name)
      name: (identifier) @_test
      arguments: (argument_list .
        (method_invocation object: (identifier) @import.alias name: (identifier) @_get) .)))
  consequence: (_) @binding.scope
  (#eq? @_test "isAssignableFrom")
  (#eq? @_get "getClass")) @reference.type

(if_statement
  condition: (parenthesized_expression
    (binary_expression
      left: (method_invocation object: (identifier) @import.alias name: (identifier) @_get)
      operator: "=="
      right: (class_literal (type_identifier) @name)))
  consequence: (_) @binding.scope
  (#eq? @_get "getClass")) @reference.type

(enhanced_for_statement
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (_) @receiver . (type_identifier) @name .)
    (generic_type (scoped_type_identifier (_) @receiver . (type_identifier) @name .))
  ]
  name: (identifier) @import.alias) @reference.type

; ---------------------------------------------------------------------------
; Type uses: superclasses and implemented / extended interfaces
; ---------------------------------------------------------------------------

(superclass
  [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
    (scoped_type_identifier (type_identifier) @name .)
    (generic_type (scoped_type_identifier (type_identifier) @name .))
  ]) @reference.type

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
      (scoped_type_identifier (type_identifier) @name .)
      (generic_type (scoped_type_identifier (type_identifier) @name .))
    ])) @reference.type

(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (generic_type (type_identifier) @name)
      (scoped_type_identifier (type_identifier) @name .)
      (generic_type (scoped_type_identifier (type_identifier) @name .))
    ])) @reference.type

; anonymous classes: new Runnable() { ... } implements or extends Runnable
(object_creation_expression
  type: [
    (type_identifier) @name
    (generic_type (type_identifier) @name)
  ]
  (class_body)) @reference.type
