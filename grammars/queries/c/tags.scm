; C tags query.
; Order matters: the first pattern that matches a node wins, so specific patterns
; come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

; Function definitions (prototypes are declarations, not definitions).
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
    (attributed_declarator (function_declarator declarator: (identifier) @name))
  ]) @definition.function

; Structs, unions and enums with a body.
(struct_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.union

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

; Enumerators are constants.
(enumerator
  name: (identifier) @name) @definition.constant

; `typedef struct { ... } point_t;`: the typedef names the anonymous struct.
(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

; `typedef struct circle { ... } circle_t;`: the struct is its own definition, so the
; typedef's node is only its name (a node containing the struct would nest it).
(type_definition
  type: [
    (struct_specifier name: (_) body: (_))
    (union_specifier name: (_) body: (_))
    (enum_specifier name: (_) body: (_))
  ]
  declarator: (type_identifier) @name @definition.type)

; Other typedefs, function pointer typedefs included.
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name)))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (parenthesized_declarator
          (pointer_declarator declarator: (type_identifier) @name))))
  ]) @definition.type

; Macros (a `#define X` without a value, such as an include guard, is a flag).
(preproc_function_def
  name: (identifier) @name) @definition.macro

(preproc_def
  name: (identifier) @name
  value: (_)) @definition.macro

; File-scope constants (`static const double TAU = ...;`) and variables: declarations
; directly in the file, in `#if` blocks or in `extern "C" { }`, not in functions, and
; not `extern` declarations of something defined elsewhere.
(translation_unit
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_ifdef
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_if
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_else
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(preproc_elif
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(declaration_list
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#eq? @_const "const"))

(translation_unit
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

(preproc_ifdef
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

(preproc_if
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

(preproc_else
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

(preproc_elif
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

(declaration_list
  (declaration
    declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (init_declarator
        declarator: [
          (identifier) @name
          (pointer_declarator declarator: (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

(preproc_include
  path: (_) @name @import.module) @reference.import

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; Calls through function pointers in structs: `s->ops->area(s)`, `obj.fn(x)`
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; `f(x)` (function-like macros included)
(call_expression
  function: (identifier) @name) @reference.call

; `(*fp)(x)`, `(fp)(x)`
(call_expression
  function: (parenthesized_expression
    [
      (identifier) @name
      (pointer_expression argument: (identifier) @name)
    ])) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name
; ---------------------------------------------------------------------------

; `qsort(a, n, size, by_id)`, `atexit(&cleanup)` (not `s->field`: in C that is data)
(argument_list
  (identifier) @name @reference.callback)

(argument_list
  (pointer_expression
    operator: "&"
    argument: (identifier) @name) @reference.callback)

; Vtables: `struct ops o = { area, name };`, `{ .area = circle_area }`
(initializer_list
  [
    (identifier) @name
    (pointer_expression operator: "&" argument: (identifier) @name)
  ] @reference.callback)

(initializer_pair
  value: [
    (identifier) @name
    (pointer_expression operator: "&" argument: (identifier) @name)
  ] @reference.callback)
