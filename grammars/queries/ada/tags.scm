; Ada tags: packages and package bodies (modules), subprograms (functions; Ada has no
; syntactic methods, primitives live beside their type), tagged types (classes),
; interfaces, records, enumerations, other types and subtypes, constants, tasks and
; protected types with their entries, generic instantiations; with / use / package
; renaming as imports; procedure, function and entry calls; 'Access as a callback.
; The extractor keeps the first *finished* match for a name node: specific patterns come
; first and never finish later than the generic ones they shadow.

; ---------------------------------------------------------------------------
; Packages

; generic ... package Sorting is: the doc comment sits above `generic`, out of reach of
; the extractor's own look-up from the package declaration.
((comment)+ @doc
  .
  (generic_package_declaration
    (package_declaration
      name: (_) @name) @definition.module))

(package_declaration
  name: (_) @name) @definition.module

(package_body
  name: (_) @name) @definition.module

; separate (Parent) procedure Sep is ...: the subunit's body is qualified by its parent
(subunit
  parent_unit_name: (_) @name) @definition.module

(package_body_stub
  .
  (identifier) @name) @definition.module

; package Shape_Vectors is new Ada.Containers.Vectors (...): a package, an instance of the generic
(generic_instantiation
  "package"
  name: (_) @name) @definition.module

(generic_instantiation
  ["procedure" "function"]
  name: (_) @name) @definition.function

; ... is new Pkg.Generic: a use of the generic, recorded as a call of it (with actual
; parameters it is a function_call, caught by the call patterns below)
(generic_instantiation
  generic_name: [
    (identifier) @name
    (selected_component
      prefix: (_) @receiver
      selector_name: (identifier) @name)
  ]) @reference.call

; Subprograms given as generic actuals: is new Generic_Sort ("<" => Less)
(generic_instantiation
  generic_name: (function_call
    (actual_parameter_part
      (parameter_association
        (expression
          .
          (term
            .
            name: (identifier) @name .) .)) @reference.callback)))

; ---------------------------------------------------------------------------
; Tasks and protected objects: task / protected types are classes whose entries and
; protected operations are methods; a protected body qualifies its operations; a task
; body is the task's code, a function.

(protected_type_declaration
  .
  (identifier) @name) @definition.class

(single_protected_declaration
  .
  (identifier) @name) @definition.class

(task_type_declaration
  .
  (identifier) @name) @definition.class

(single_task_declaration
  .
  (identifier) @name) @definition.class

(protected_body
  .
  (identifier) @name) @scope

(task_body
  .
  (identifier) @name) @definition.function

(entry_declaration
  entry_name: (identifier) @name) @definition.method

(entry_body
  .
  (identifier) @name) @definition.method

(accept_statement
  entry_direct_name: (identifier) @name) @definition.method

; Interfaces a task or protected type implements: task type T is new I with ...
(protected_type_declaration
  .
  (identifier)
  [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ] @reference.type)

(task_type_declaration
  .
  (identifier)
  [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ] @reference.type)

; ---------------------------------------------------------------------------
; Subprograms

; generic ... procedure Swap (...);  (doc above `generic`, as for generic packages)
((comment)+ @doc
  .
  (generic_subprogram_declaration
    [
      (procedure_specification name: (_) @name)
      (function_specification name: (_) @name)
    ] @definition.function))

(generic_subprogram_declaration
  [
    (procedure_specification name: (_) @name)
    (function_specification name: (_) @name)
  ] @definition.function)

; generic ... with procedure Write_Byte (B : Byte); ... package LZ is: a formal subprogram of
; the generic, a member of what it declares; a call of it in the generic's body runs what each
; instance passes for it.
(formal_concrete_subprogram_declaration
  [
    (procedure_specification name: (_) @name)
    (function_specification name: (_) @name)
  ]) @definition.function

(subprogram_declaration
  [
    (procedure_specification name: (_) @name)
    (function_specification name: (_) @name)
  ]) @definition.function

(subprogram_body
  [
    (procedure_specification name: (_) @name)
    (function_specification name: (_) @name)
  ]) @definition.function

(expression_function_declaration
  (function_specification name: (_) @name)) @definition.function

(null_procedure_declaration
  (procedure_specification name: (_) @name)) @definition.function

(subprogram_body_stub
  [
    (procedure_specification name: (_) @name)
    (function_specification name: (_) @name)
  ]) @definition.function

; procedure Put (S : String) renames Ada.Text_IO.Put_Line;
(subprogram_renaming_declaration
  [
    (procedure_specification name: (_) @name)
    (function_specification name: (_) @name)
  ]) @definition.function

(subprogram_renaming_declaration
  callable_entity_name: [
    (identifier) @name
    (selected_component
      prefix: (_) @receiver
      selector_name: (_) @name)
  ] @reference.callback)

; ---------------------------------------------------------------------------
; Types. Patterns that could name the same node are kept mutually exclusive (by shape
; or by text predicates): the extractor keeps the match tree-sitter finishes first,
; which is not always the one written first.

; type Color is (Red, Green, Blue);
(full_type_declaration
  .
  (identifier) @name
  (enumeration_type_definition)) @definition.enum

(enumeration_type_definition
  [(identifier) (character_literal)] @name @definition.constant)

; type Drawable is interface;  type I3 is interface and I1 and I2;
(full_type_declaration
  .
  (identifier) @name
  (interface_type_definition)) @definition.interface

(interface_type_definition
  [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ] @reference.type)

; type T is [abstract] tagged [limited] record ... end record;
(full_type_declaration
  .
  (identifier) @name
  (record_type_definition) @_rec
  (#match? @_rec "^(?i)(abstract[ \t\r\n]+)?tagged[ \t\r\n]")) @definition.class

; type Point is [limited] record ... end record;
(full_type_declaration
  .
  (identifier) @name
  (record_type_definition) @_rec
  (#not-match? @_rec "^(?i)(abstract[ \t\r\n]+)?tagged[ \t\r\n]")) @definition.struct

; type Circle is new Shape [and I1] with record ... end record;  (a tagged extension)
(full_type_declaration
  .
  (identifier) @name
  (derived_type_definition
    (record_extension_part))) @definition.class

; type Meters is new Float [range ...];  (no extension)
(full_type_declaration
  .
  (identifier) @name
  (derived_type_definition) @_der
  (#not-match? @_der "(?i)[ \t\r\n]with[ \t\r\n]")) @definition.type

; Parent type and progenitor interfaces of a derived type.
(derived_type_definition
  [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ] @reference.type)

; Access, array and numeric types.
(full_type_declaration
  .
  (identifier) @name
  [
    (access_to_object_definition)
    (access_to_subprogram_definition)
    (array_type_definition)
    (decimal_fixed_point_definition)
    (floating_point_definition)
    (modular_type_definition)
    (ordinary_fixed_point_definition)
    (signed_integer_type_definition)
  ]) @definition.type

; type Circle is new Shape with private;
(private_extension_declaration
  .
  (identifier) @name) @definition.class

(private_extension_declaration
  .
  (identifier)
  [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ] @reference.type)

; type Shape is [abstract] tagged [limited] private;
((private_type_declaration
  .
  (identifier) @name) @definition.class
  (#match? @definition.class "(?i)[ \t\r\n]is[ \t\r\n]+(abstract[ \t\r\n]+)?tagged[ \t\r\n]"))

; type Handle is [limited] private;
((private_type_declaration
  .
  (identifier) @name) @definition.type
  (#not-match? @definition.type "(?i)[ \t\r\n]is[ \t\r\n]+(abstract[ \t\r\n]+)?tagged[ \t\r\n]"))

(subtype_declaration
  .
  (identifier) @name) @definition.type

; Record components. One declaration may name several (X, Y : Float): then each name is
; its own definition node, so that the names do not nest in each other.
((component_declaration
  .
  (identifier) @name) @definition.field
  (#match? @definition.field "^[^:,]*:"))

((component_declaration
  (identifier) @name @definition.field
  (component_definition)) @_decl
  (#match? @_decl "^[^:]*,[^:]*:"))

; ---------------------------------------------------------------------------
; Constants: Tau : constant Float := 6.28;  Max : constant := 64;  A, B : constant T := 0;

((object_declaration
  .
  name: (identifier) @name) @definition.constant
  (#match? @definition.constant "^[^:,]*:[ \t\r\n]*((?i)aliased[ \t\r\n]+)?(?i)constant[^a-zA-Z0-9_]"))

; (the grammar puts the `name` field on the first name only)
((object_declaration
  .
  name: (identifier) @name @definition.constant
  (_) .) @_decl
  (#match? @_decl "^[^:]*,[^:]*:[ \t\r\n]*((?i)aliased[ \t\r\n]+)?(?i)constant[^a-zA-Z0-9_]"))

((object_declaration
  name: (identifier)
  (identifier) @name @definition.constant
  [
    subtype_mark: (_)
    (array_type_definition)
  ]) @_decl
  (#match? @_decl "^[^:]*,[^:]*:[ \t\r\n]*((?i)aliased[ \t\r\n]+)?(?i)constant[^a-zA-Z0-9_]"))

((number_declaration
  .
  (identifier) @name) @definition.constant
  (#match? @definition.constant "^[^:,]*:"))

((number_declaration
  (identifier) @name @definition.constant
  (expression)) @_decl
  (#match? @_decl "^[^:]*,[^:]*:"))

; ---------------------------------------------------------------------------
; Imports

; with Ada.Text_IO, Ada.Strings.Unbounded;
(with_clause
  [(identifier) (selected_component)] @name @import.module) @reference.import

; use Ada.Text_IO;  (not `use type T` / `use all type T`)
(use_clause
  !is_type
  [(identifier) (selected_component)] @name @import.module) @reference.import

; package IO renames Ada.Text_IO;
(package_renaming_declaration
  name: (_) @import.alias
  package_name: (_) @name @import.module) @reference.import

; ---------------------------------------------------------------------------
; Calls

; Pkg.Proc (X);  Obj.Method (X);  W.Start;  (procedure and entry calls; not T'Write (...))
(procedure_call_statement
  .
  name: (selected_component
    prefix: (_) @receiver
    selector_name: (identifier) @name)
  .) @reference.call

(procedure_call_statement
  name: (selected_component
    prefix: (_) @receiver
    selector_name: (identifier) @name)
  .
  (actual_parameter_part)) @reference.call

; Proc (X);  Proc;
(procedure_call_statement
  .
  name: (identifier) @name
  .) @reference.call

(procedure_call_statement
  name: (identifier) @name
  .
  (actual_parameter_part)) @reference.call

; Pkg.Func (X), Obj.Func (X). Not attribute calls such as Float'Image (X).
(function_call
  name: (selected_component
    prefix: (_) @receiver
    selector_name: (identifier) @name)
  .
  (actual_parameter_part)) @reference.call

; Func (X) (Ada's syntax cannot tell a call from indexing or a type conversion)
(function_call
  name: (identifier) @name
  .
  (actual_parameter_part)) @reference.call

; Next, Pkg.Next, Obj.Done read as values (`X := Next;`, `if not BD.Done then`, `Show
; (Count)`): a subprogram without parameters is called by its name alone, which the grammar
; cannot tell from a variable's. The extractor leaves out the names a scope around declares
; as objects, and the graph keeps the rest only where they name a subprogram.
([
  (term name: (identifier) @name)
  (factor_not name: (identifier) @name)
  (factor_abs name: (identifier) @name)
] @reference.call)

([
  (term name: (selected_component prefix: (_) @receiver selector_name: (identifier) @name))
  (factor_not name: (selected_component prefix: (_) @receiver selector_name: (identifier) @name))
  (factor_abs name: (selected_component prefix: (_) @receiver selector_name: (identifier) @name))
] @reference.call)

; new Circle'(...), new Circle
(allocator
  (qualified_expression
    subtype_name: [
      (identifier) @name
      (selected_component
        prefix: (_) @receiver
        selector_name: (identifier) @name)
    ])) @reference.call

(allocator
  subtype_mark: [
    (identifier) @name
    (selected_component
      prefix: (_) @receiver
      selector_name: (identifier) @name)
  ]) @reference.call

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the parameter or variable it types
; (`Cat : in out File_Catalogue`, `BD : access Build_Data`, `Z : Zip.Zip_Info;`):
; `Cat.Source_Open (…)` calls a primitive of `File_Catalogue`.

(parameter_specification
  (identifier) @import.alias
  subtype_mark: [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ]) @reference.type

(parameter_specification
  (identifier) @import.alias
  (access_definition
    subtype_mark: [
      (identifier) @name
      (selected_component selector_name: (identifier) @name)
    ])) @reference.type

(object_declaration
  name: (identifier) @import.alias
  subtype_mark: [
    (identifier) @name
    (selected_component selector_name: (identifier) @name)
  ]) @reference.type

; ---------------------------------------------------------------------------
; Callbacks: Visit'Access, Pkg.Handler'Unrestricted_Access

(term
  name: [
    (identifier) @name
    (selected_component
      prefix: (_) @receiver
      selector_name: (identifier) @name)
  ]
  .
  name: (tick)
  .
  name: (attribute_designator) @_attr
  (#match? @_attr "^(?i)(access|unchecked_access|unrestricted_access)$")) @reference.callback
