; Dart tags (tree-sitter-dart 0.3). Specific patterns come before generic ones.
; Members are `member_declaration > method_declaration` (with a body) or
; `member_declaration > declaration` (abstract, external, `: this(...)` constructors).

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(library_name
  (dotted_identifier_list) @name) @definition.module

; Dart 3 `interface class` / `abstract interface class`
(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  name: (identifier) @name) @definition.class

(mixin_declaration
  name: (identifier) @name) @definition.mixin

(extension_declaration
  name: (identifier) @name) @definition.extension

; `extension on Foo { ... }` has no name: it is named after the extended type
(extension_declaration
  !name
  class: (type
    (type_identifier) @name)) @definition.extension

(extension_type_declaration
  name: [
    (identifier) @name
    (extension_type_name (identifier) @name)
  ]) @definition.class

(enum_declaration
  name: (identifier) @name) @definition.enum

(enum_entry
  name: (identifier) @name) @definition.constant

(type_alias
  (type_identifier) @name) @definition.type

; top-level functions, getters and setters
(function_declaration
  signature: (function_signature
    name: (identifier) @name)) @definition.function

(getter_declaration
  signature: (getter_signature
    name: (identifier) @name)) @definition.function

(setter_declaration
  signature: (setter_signature
    name: (identifier) @name)) @definition.function

(external_function_declaration
  signature: (function_signature
    name: (identifier) @name)) @definition.function

; nested functions
(local_function_declaration
  (function_signature
    name: (identifier) @name)) @definition.function

; constructors: `Foo(...)`, `Foo.named(...)`, `factory Foo.named(...)`, `const Foo(...)`
; (a named constructor is named by its second part: `Foo.named` inside class Foo)
([(method_declaration (method_signature [
     (constructor_signature name: (identifier) name: (identifier) @name)
     (constant_constructor_signature name: (identifier) name: (identifier) @name)
     (factory_constructor_signature name: (identifier) name: (identifier) @name)
   ]))
  (declaration [
     (constructor_signature name: (identifier) name: (identifier) @name)
     (constant_constructor_signature name: (identifier) name: (identifier) @name)
     (factory_constructor_signature name: (identifier) name: (identifier) @name)
     (redirecting_factory_constructor_signature name: (identifier) name: (identifier) @name)
   ])] @definition.constructor)

([(method_declaration (method_signature [
     (constructor_signature . name: (identifier) @name . parameters: (_))
     (constant_constructor_signature . name: (identifier) @name . parameters: (_))
     (factory_constructor_signature . name: (identifier) @name . parameters: (_))
   ]))
  (declaration [
     (constructor_signature . name: (identifier) @name . parameters: (_))
     (constant_constructor_signature . name: (identifier) @name . parameters: (_))
     (factory_constructor_signature . name: (identifier) @name . parameters: (_))
     (redirecting_factory_constructor_signature . name: (identifier) @name . parameters: (_))
   ])] @definition.constructor)

; methods, getters, setters, operators (with a body, or abstract)
([(method_declaration (method_signature [
     (function_signature name: (identifier) @name)
     (getter_signature name: (identifier) @name)
     (setter_signature name: (identifier) @name)
   ]))
  (declaration [
     (function_signature name: (identifier) @name)
     (getter_signature name: (identifier) @name)
     (setter_signature name: (identifier) @name)
   ])] @definition.method)

([(method_declaration (method_signature
    (operator_signature operator: _ @name)))
  (declaration
    (operator_signature operator: _ @name))] @definition.operator)

; constants: top-level `const`, `static const` members. With one name the whole
; declaration is the definition; in `const a = 1, b = 2;` each name is (two definitions
; with one range would nest in each other).
(top_level_variable_declaration
  modifier: "const"
  (static_final_declaration_list
    .
    (static_final_declaration
      name: (identifier) @name) .)) @definition.constant

(top_level_variable_declaration
  modifier: "const"
  (static_final_declaration_list
    (static_final_declaration
      name: (identifier) @name) @definition.constant
    (static_final_declaration)))

(top_level_variable_declaration
  modifier: "const"
  (static_final_declaration_list
    (static_final_declaration)
    (static_final_declaration
      name: (identifier) @name) @definition.constant))

(declaration
  "static"
  "const"
  (static_final_declaration_list
    .
    (static_final_declaration
      name: (identifier) @name) .)) @definition.constant

(declaration
  "static"
  "const"
  (static_final_declaration_list
    (static_final_declaration
      name: (identifier) @name) @definition.constant
    (static_final_declaration)))

(declaration
  "static"
  "const"
  (static_final_declaration_list
    (static_final_declaration)
    (static_final_declaration
      name: (identifier) @name) @definition.constant))

; ---------------------------------------------------------------------------
; Calls (constructor calls `Foo()` are plain calls)
; ---------------------------------------------------------------------------

; obj.m(), this.m(), super.m(), Type.m(), prefix.f(), obj?.m()
(call_expression
  function: [
    (member_expression
      object: _ @receiver
      property: (identifier) @name)
    (null_aware_member_expression
      object: _ @receiver
      property: (identifier) @name)
  ]) @reference.call

; var p = Order(), final r = repo.find(): the call's @import.alias is the variable that holds
; its result (the resolver types calls on it). Same names and receivers as the generic
; patterns, which they precede.
(initialized_variable_declaration
  name: (identifier) @import.alias
  value: [
    (call_expression
      function: (identifier) @name) @reference.call
    (call_expression
      function: (member_expression
        object: _ @receiver
        property: (identifier) @name)) @reference.call
  ])

; f(), Foo()
(call_expression
  function: (identifier) @name) @reference.call

; f<T>(), obj.m<T>()
(call_expression
  function: (instantiation_expression
    function: [
      (identifier) @name
      (member_expression
        object: _ @receiver
        property: (identifier) @name)
    ])) @reference.call

; x..m()..n(): the receiver is the cascade's target
(cascade
  .
  (_) @receiver
  (cascade_section
    (cascade_call_expression
      property: (identifier) @name) @reference.call))

; new Foo(), const Foo(): the class. new Foo.named(), new prefix.Foo(): the last part
(new_expression
  !constructor
  type: (type
    .
    (type_identifier) @name .)) @reference.call

(new_expression
  !constructor
  type: (type
    (type_identifier) @receiver
    .
    (type_identifier) @name .)) @reference.call

(const_object_expression
  !constructor
  type: (type
    .
    (type_identifier) @name .)) @reference.call

(const_object_expression
  !constructor
  type: (type
    (type_identifier) @receiver
    .
    (type_identifier) @name .)) @reference.call

; Foo<T>.named(), new Foo<T>.named()
(constructor_invocation
  type: (type_identifier) @receiver
  constructor: (identifier) @name) @reference.call

(new_expression
  type: (type (type_identifier) @receiver)
  constructor: (identifier) @name) @reference.call

(const_object_expression
  type: (type (type_identifier) @receiver)
  constructor: (identifier) @name) @reference.call

; `: super(...)`, `: super.named(...)`, `: this(...)` in constructors
(initializer_list_entry
  "super" @name
  .
  (arguments)) @reference.call

(initializer_list_entry
  "super" @receiver
  (identifier) @name
  (arguments)) @reference.call

(redirection
  "this" @name
  .
  (arguments)) @reference.call

(redirection
  "this" @receiver
  (identifier) @name
  (arguments)) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions and methods passed by name (tear-offs), also as named
; arguments (`onPressed: handler`)
; ---------------------------------------------------------------------------

(arguments
  (identifier) @name @reference.callback)

(arguments
  (member_expression
    object: _ @receiver
    property: (identifier) @name) @reference.callback)

(arguments
  (named_argument
    (label)
    (identifier) @name @reference.callback))

(arguments
  (named_argument
    (label)
    (member_expression
      object: _ @receiver
      property: (identifier) @name) @reference.callback))

; Foo.new tear-off
(arguments
  (constructor_tearoff
    (type_identifier) @name
    "new") @reference.callback)

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; import 'uri' as prefix;  (the whole library under a prefix)
(import_specification
  uri: (_) @name @import.module
  alias: (identifier) @import.alias) @reference.import

; import 'uri' show A, B;  (those names)
(import_specification
  !alias
  uri: (_) @import.module
  (combinator
    "show"
    (identifier) @name)) @reference.import

; import 'uri';  import 'uri' hide X;
((import_specification
  !alias
  uri: (_) @name @import.module) @reference.import
  (#not-match? @reference.import "\\sshow\\s"))

; export 'uri';  part 'uri';
(library_export
  uri: (_) @name @import.module) @reference.import

(part_directive
  uri: (_) @name @import.module) @reference.import

; ---------------------------------------------------------------------------
; Type uses: superclass, mixins, interfaces, `on` types
; ---------------------------------------------------------------------------

(superclass
  type: (type
    (type_identifier) @name .)) @reference.type

(superclass
  type: (type
    (type_identifier) @name
    .
    (type_arguments) .)) @reference.type

(mixins
  [
    (type (type_identifier) @name .)
    (type (type_identifier) @name . (type_arguments) .)
  ] @reference.type)

(interfaces
  [
    (type (type_identifier) @name .)
    (type (type_identifier) @name . (type_arguments) .)
  ] @reference.type)

; `mixin M on Base`
(mixin_declaration
  [
    (type (type_identifier) @name .)
    (type (type_identifier) @name . (type_arguments) .)
  ] @reference.type)

; `extension E on Foo`: the extended type's members are reachable from the extension
(extension_declaration
  name: (identifier)
  class: [
    (type (type_identifier) @name .)
    (type (type_identifier) @name . (type_arguments) .)
  ] @reference.type)

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a parameter, a
; local, a field, a `for` variable): `int persist(User user)`, `Order o = …; o.total()`.
; ---------------------------------------------------------------------------

(formal_parameter
  (type . (type_identifier) @name)
  name: (identifier) @import.alias) @reference.type

(initialized_variable_declaration
  (type . (type_identifier) @name)
  name: (identifier) @import.alias) @reference.type

(declaration
  (type . (type_identifier) @name)
  (initialized_identifier_list
    (initialized_identifier name: (identifier) @import.alias))) @reference.type

(for_statement
  (type . (type_identifier) @name)
  name: (identifier) @import.alias) @reference.type
