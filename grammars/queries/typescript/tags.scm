; TypeScript and TSX tags (one query for both grammars, so it uses no node type that
; only one of them has: no JSX patterns, no `<T>x` type assertions).
;
; JSDoc and `//` comments right above a definition (or above its `export`) are found
; by the extractor itself. Variable-bound functions use the whole declaration as the
; definition node so that the comment above `const f = () => …` is its doc.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(class
  name: (type_identifier) @name) @definition.class

; const Foo = class { … }
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class !name))) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; enum members
(enum_body
  name: (property_identifier) @name @definition.constant)

(enum_body
  (enum_assignment
    name: (property_identifier) @name) @definition.constant)

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

; namespace Geo { … }, module Geo.Inner { … }, declare module "m" { … }
(internal_module
  name: [
    (identifier)
    (nested_identifier)
    (string)
  ] @name) @definition.module

(module
  name: [
    (identifier)
    (nested_identifier)
    (string)
  ] @name) @definition.module

; methods, constructors, getters/setters, #private methods; a function in an object
; literal (the extractor makes functions of a class methods)
(method_definition
  name: [
    (property_identifier)
    (private_property_identifier)
  ] @name) @definition.function

; interface members and overload / abstract signatures
(method_signature
  name: [
    (property_identifier)
    (private_property_identifier)
  ] @name) @definition.method

(abstract_method_signature
  name: [
    (property_identifier)
    (private_property_identifier)
  ] @name) @definition.method

; class fields holding a function: onResize = (e) => { … }
(public_field_definition
  name: [
    (property_identifier)
    (private_property_identifier)
  ] @name
  value: [
    (arrow_function)
    (function_expression)
    (generator_function)
  ]) @definition.method

; static readonly MAX = 3
(public_field_definition
  "static"
  name: (property_identifier) @name
  value: [
    (number) (string) (template_string) (regex) (true) (false) (null)
    (identifier) (member_expression) (subscript_expression)
    (binary_expression) (unary_expression) (ternary_expression)
    (object) (array) (call_expression) (new_expression) (as_expression)
  ]
  (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; overload signatures and `declare function`
(function_signature
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

; const MAX_SIZE = 10 at the top level or in a namespace (exported or not)
([
  (program
    (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [
          (number) (string) (template_string) (regex) (true) (false) (null)
          (identifier) (member_expression) (subscript_expression)
          (binary_expression) (unary_expression) (ternary_expression)
          (object) (array) (call_expression) (new_expression) (as_expression)
        ])) @definition.constant)
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
            (object) (array) (call_expression) (new_expression) (as_expression)
          ])) @definition.constant))
  (statement_block
    (export_statement
      declaration: (lexical_declaration
        kind: "const"
        (variable_declarator
          name: (identifier) @name
          value: [
            (number) (string) (template_string) (regex) (true) (false) (null)
            (identifier) (member_expression) (subscript_expression)
            (binary_expression) (unary_expression) (ternary_expression)
            (object) (array) (call_expression) (new_expression) (as_expression)
          ])) @definition.constant))
]
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; const api = { load() {…}, save: () => … } at the top level: an object whose
; functions nest in it (`api.load`), not module-level functions
([
  (program
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (object))) @definition.variable)
  (program
    (export_statement
      declaration: (lexical_declaration
        (variable_declarator
          name: (identifier) @name
          value: (object))) @definition.variable))
])

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

; export * from "m": the name is `*`
(export_statement
  "*" @name
  source: (string (string_fragment) @import.module)) @reference.import

; export default function log() {}, export default class C {}, export default log:
; the file's default export, `export { log as default }` in effect (alias `default`,
; no module)
(export_statement
  "default" @import.alias
  declaration: [
    (function_declaration name: (identifier) @name)
    (generator_function_declaration name: (identifier) @name)
    (class_declaration name: (type_identifier) @name)
    (abstract_class_declaration name: (type_identifier) @name)
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

; import fs = require("fs")
(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string (string_fragment) @name @import.module))) @reference.import

; import("m")
(call_expression
  function: (import)
  arguments: (arguments
    .
    (string (string_fragment) @name @import.module))) @reference.import

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; const x = f(…), const x = await obj.m(…), x = new Foo(…) in a declaration, a class
; field or `this.x = …`: the call's @import.alias is the variable that holds its
; result (the resolver types calls on it). Same names and receivers as the generic
; patterns below, which they precede.
([
  (variable_declarator
    name: (identifier) @import.alias
    !type
    value: [
      (call_expression
        function: [
          (identifier) @name
          (member_expression object: (_) @receiver property: (property_identifier) @name)
        ]) @reference.call
      (await_expression
        (call_expression
          function: [
            (identifier) @name
            (member_expression object: (_) @receiver property: (property_identifier) @name)
          ]) @reference.call)
    ])
]
  (#not-eq? @name "require"))

[
  (variable_declarator
    name: (identifier) @import.alias
    value: (new_expression constructor: [
        (identifier) @name
        (member_expression object: (_) @receiver property: (property_identifier) @name)
      ]) @reference.call)
  (public_field_definition
    name: (property_identifier) @import.alias
    value: (new_expression constructor: [
        (identifier) @name
        (member_expression object: (_) @receiver property: (property_identifier) @name)
      ]) @reference.call)
  (assignment_expression
    left: (member_expression object: (this) property: (property_identifier)) @import.alias
    right: (new_expression constructor: [
        (identifier) @name
        (member_expression object: (_) @receiver property: (property_identifier) @name)
      ]) @reference.call)
]

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

; ---------------------------------------------------------------------------
; Types
; ---------------------------------------------------------------------------

; Bindings: a type reference whose @import.alias is the variable it types (a
; parameter, a variable, a field, a type parameter's bound), so that calls on the
; variable find the type. They come first: the generic type patterns below match the
; same names. (A variable initialised by a call or `new` is the call's alias, under
; Calls.)

; A type test narrows its variable in the `if`'s branch (not in its `else`): `if (s
; instanceof Circle) s.area()`, alone or first of an `&&`
(if_statement
  condition: (parenthesized_expression [
    (binary_expression
      left: (identifier) @import.alias
      operator: "instanceof"
      right: (identifier) @name)
    (binary_expression
      left: (binary_expression
        left: (identifier) @import.alias
        operator: "instanceof"
        right: (identifier) @name)
      operator: "&&")
  ])
  consequence: (_) @binding.scope) @reference.type

; (c: Circle), (private repo: Repo), (s?: Shape)
; repos: Repo[], repos: Array<Repo> (also readonly, a Set): a container of Repos, so that
; `for (const r of repos)` and `repos[i]` give a Repo (`@binding.elements`: the alias gets `[]`)
(required_parameter
  pattern: (identifier) @import.alias
  type: (type_annotation [
    (array_type (type_identifier) @name)
    (generic_type
      name: (type_identifier) @_array
      type_arguments: (type_arguments . (type_identifier) @name .))
  ] @binding.elements)
  (#match? @_array "^(Array|ReadonlyArray|Set|ReadonlySet)$")) @reference.type

(optional_parameter
  pattern: (identifier) @import.alias
  type: (type_annotation [
    (array_type (type_identifier) @name)
    (generic_type
      name: (type_identifier) @_array
      type_arguments: (type_arguments . (type_identifier) @name .))
  ] @binding.elements)
  (#match? @_array "^(Array|ReadonlyArray|Set|ReadonlySet)$")) @reference.type

(variable_declarator
  name: (identifier) @import.alias
  type: (type_annotation [
    (array_type (type_identifier) @name)
    (generic_type
      name: (type_identifier) @_array
      type_arguments: (type_arguments . (type_identifier) @name .))
  ] @binding.elements)
  (#match? @_array "^(Array|ReadonlyArray|Set|ReadonlySet)$")) @reference.type

(public_field_definition
  name: (property_identifier) @import.alias
  type: (type_annotation [
    (array_type (type_identifier) @name)
    (generic_type
      name: (type_identifier) @_array
      type_arguments: (type_arguments . (type_identifier) @name .))
  ] @binding.elements)
  (#match? @_array "^(Array|ReadonlyArray|Set|ReadonlySet)$")) @reference.type

; for (const r of repos): `r` is an element of what is iterated
(for_in_statement
  left: (identifier) @import.alias
  "of"
  right: (_) @name) @reference.iteration

(required_parameter
  pattern: (identifier) @import.alias
  type: (type_annotation [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
    (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)
  ])) @reference.type

(optional_parameter
  pattern: (identifier) @import.alias
  type: (type_annotation [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
    (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)
  ])) @reference.type

; let c: Circle = …
(variable_declarator
  name: (identifier) @import.alias
  type: (type_annotation [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
    (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)
  ])) @reference.type

; class fields: repo: Repo
(public_field_definition
  name: (property_identifier) @import.alias
  type: (type_annotation [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (generic_type name: (nested_type_identifier module: (_) @receiver name: (type_identifier) @name))
    (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)
  ])) @reference.type

; <T extends Shape>
(type_parameter
  name: (type_identifier) @import.alias
  constraint: (constraint (type_identifier) @name)) @reference.type

; class A extends B, extends ns.B, extends B<T>
(extends_clause
  value: (identifier) @name @reference.type)

(extends_clause
  value: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name @reference.type))

; implements I, interface X extends Y, and every other type position
([
  (implements_clause (type_identifier) @name @reference.type)
  (extends_type_clause (type_identifier) @name @reference.type)
  (type_annotation (type_identifier) @name @reference.type)
  (type_arguments (type_identifier) @name @reference.type)
  (union_type (type_identifier) @name @reference.type)
  (intersection_type (type_identifier) @name @reference.type)
  (array_type (type_identifier) @name @reference.type)
  (tuple_type (type_identifier) @name @reference.type)
  (optional_type (type_identifier) @name @reference.type)
  (rest_type (type_identifier) @name @reference.type)
  (readonly_type (type_identifier) @name @reference.type)
  (parenthesized_type (type_identifier) @name @reference.type)
  (constraint (type_identifier) @name @reference.type)
  (default_type (type_identifier) @name @reference.type)
  (function_type return_type: (type_identifier) @name @reference.type)
  (type_alias_declaration value: (type_identifier) @name @reference.type)
  (as_expression (type_identifier) @name @reference.type)
  (satisfies_expression (type_identifier) @name @reference.type)
  (generic_type name: (type_identifier) @name @reference.type)
]
  (#not-match? @name "^[A-Z]$"))

; ns.Type
(nested_type_identifier
  module: (_) @receiver
  name: (type_identifier) @name @reference.type)
