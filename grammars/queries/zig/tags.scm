;; Zig tags query.
;; Order matters: the first pattern that matches a node wins, so specific patterns
;; come before generic ones.

;; ---------------------------------------------------------------------------
;; Definitions
;; ---------------------------------------------------------------------------

;; Containers bound to a name: `const Circle = struct { ... };`
(variable_declaration
  (identifier) @name
  (struct_declaration)) @definition.struct

(variable_declaration
  (identifier) @name
  (enum_declaration)) @definition.enum

(variable_declaration
  (identifier) @name
  (union_declaration)) @definition.union

(variable_declaration
  (identifier) @name
  (opaque_declaration)) @definition.struct

(variable_declaration
  (identifier) @name
  (error_set_declaration)) @definition.enum

;; Functions; inside a container they become methods.
(function_declaration
  name: (identifier) @name) @definition.function

;; `test "name" { ... }`
(test_declaration
  [(string) (identifier)] @name) @definition.function

;; Enum members
(enum_declaration
  (container_field
    name: (identifier) @name) @definition.constant)

;; Container-level constants and variables (not locals). A `const` bound to
;; `@import(...)`, to a path `a.b.C` (an import of a declaration), to `@This()` or to a
;; container is not a constant: those are imports, or definitions above.

(source_file
  (variable_declaration
    "const"
    (identifier) @name) @definition.constant @_decl
  (#not-match? @_decl "^[^=]*=\\s*(@import\\s*\\(|@This\\s*\\(|(extern\\s+|packed\\s+)?(struct|enum|union|opaque|error)\\b|[A-Za-z_][A-Za-z0-9_.]*\\s*;\\s*$)"))

(struct_declaration
  (variable_declaration
    "const"
    (identifier) @name) @definition.constant @_decl
  (#not-match? @_decl "^[^=]*=\\s*(@import\\s*\\(|@This\\s*\\(|(extern\\s+|packed\\s+)?(struct|enum|union|opaque|error)\\b|[A-Za-z_][A-Za-z0-9_.]*\\s*;\\s*$)"))

(enum_declaration
  (variable_declaration
    "const"
    (identifier) @name) @definition.constant @_decl
  (#not-match? @_decl "^[^=]*=\\s*(@import\\s*\\(|@This\\s*\\(|(extern\\s+|packed\\s+)?(struct|enum|union|opaque|error)\\b|[A-Za-z_][A-Za-z0-9_.]*\\s*;\\s*$)"))

(union_declaration
  (variable_declaration
    "const"
    (identifier) @name) @definition.constant @_decl
  (#not-match? @_decl "^[^=]*=\\s*(@import\\s*\\(|@This\\s*\\(|(extern\\s+|packed\\s+)?(struct|enum|union|opaque|error)\\b|[A-Za-z_][A-Za-z0-9_.]*\\s*;\\s*$)"))

(opaque_declaration
  (variable_declaration
    "const"
    (identifier) @name) @definition.constant @_decl
  (#not-match? @_decl "^[^=]*=\\s*(@import\\s*\\(|@This\\s*\\(|(extern\\s+|packed\\s+)?(struct|enum|union|opaque|error)\\b|[A-Za-z_][A-Za-z0-9_.]*\\s*;\\s*$)"))

(source_file
  (variable_declaration
    "var"
    (identifier) @name) @definition.variable)

(struct_declaration
  (variable_declaration
    "var"
    (identifier) @name) @definition.variable)

(enum_declaration
  (variable_declaration
    "var"
    (identifier) @name) @definition.variable)

(union_declaration
  (variable_declaration
    "var"
    (identifier) @name) @definition.variable)

(opaque_declaration
  (variable_declaration
    "var"
    (identifier) @name) @definition.variable)

;; ---------------------------------------------------------------------------
;; Imports
;; ---------------------------------------------------------------------------

;; `const util = @import("util.zig");`: the local name is the alias.
(variable_declaration
  (identifier) @import.alias
  (builtin_function
    (builtin_identifier) @_import
    (arguments . (string) @name @import.module))
  (#eq? @_import "@import")) @reference.import

;; `usingnamespace @import("x.zig");`
(using_namespace_declaration
  (builtin_function
    (builtin_identifier) @_import
    (arguments . (string) @name @import.module))
  (#eq? @_import "@import")) @reference.import

;; `const Allocator = std.mem.Allocator;` at container level: imports a declaration.

(source_file
  (variable_declaration
    "const"
    (identifier) @import.alias
    (field_expression
      object: [(identifier) (field_expression)] @import.module
      member: (identifier) @name) @_value
    .) @reference.import)

(struct_declaration
  (variable_declaration
    "const"
    (identifier) @import.alias
    (field_expression
      object: [(identifier) (field_expression)] @import.module
      member: (identifier) @name) @_value
    .) @reference.import)

(enum_declaration
  (variable_declaration
    "const"
    (identifier) @import.alias
    (field_expression
      object: [(identifier) (field_expression)] @import.module
      member: (identifier) @name) @_value
    .) @reference.import)

(union_declaration
  (variable_declaration
    "const"
    (identifier) @import.alias
    (field_expression
      object: [(identifier) (field_expression)] @import.module
      member: (identifier) @name) @_value
    .) @reference.import)

(opaque_declaration
  (variable_declaration
    "const"
    (identifier) @import.alias
    (field_expression
      object: [(identifier) (field_expression)] @import.module
      member: (identifier) @name) @_value
    .) @reference.import)

;; ---------------------------------------------------------------------------
;; Bindings: a type reference whose @import.alias is the variable it types, so that calls
;; on it find the type: `var c: Counter = …`, `self: *Self`, `var c = Self{ … }`.
;; ---------------------------------------------------------------------------

(variable_declaration
  (identifier) @import.alias
  type: [
    (identifier) @name
    (pointer_type (identifier) @name)
  ]) @reference.type

(parameter
  name: (identifier) @import.alias
  type: [
    (identifier) @name
    (pointer_type (identifier) @name)
  ]) @reference.type

;; Read from a field: `var input = thread.input`, `var it = &p.it` (the variable is of the
;; field's type, which the resolver reads from the receiver's struct). In a function's body
;; only: a container's `const Allocator = std.mem.Allocator` is an import.
(block
  (variable_declaration
    (identifier) @import.alias
    !type
    [
      (field_expression object: (_) @receiver member: (identifier) @name) @reference.type
      (unary_expression
        operator: "&"
        argument: (field_expression object: (_) @receiver member: (identifier) @name) @reference.type)
    ]))

;; A struct's field: `it: StringIterator` types `p.it`.
(container_field
  name: (identifier) @import.alias
  type: [
    (identifier) @name
    (pointer_type (identifier) @name)
  ]) @reference.type

;; `self: *@This()`: the struct around, as `Self` is.
((parameter
  name: (identifier) @import.alias
  type: [
    (builtin_function (builtin_identifier) @name)
    (pointer_type (builtin_function (builtin_identifier) @name))
  ]) @reference.type
  (#eq? @name "@This"))

(variable_declaration
  (identifier) @import.alias
  !type
  (struct_initializer
    [
      (identifier) @name
      (field_expression object: (_) @receiver member: (identifier) @name)
      (call_expression function: (identifier) @name)
    ])) @reference.type

;; ---------------------------------------------------------------------------
;; Type references: struct literals `Circle{ .r = 1 }`
;; ---------------------------------------------------------------------------

(struct_initializer
  [
    (identifier) @name
    (field_expression object: (_) @receiver member: (identifier) @name)
  ]) @reference.type

;; ---------------------------------------------------------------------------
;; Calls
;; ---------------------------------------------------------------------------

;; `var p = Parser.init(a)`, `const c = try Compiler.init(a)`, `var re = Regex.compile(a, s)
;; catch unreachable`, `var it = iterate(xs)`: the
;; call's @import.alias is the variable that holds its result (the resolver types calls on
;; it from what the function returns). Before the generic patterns, which match it too.
(variable_declaration
  (identifier) @import.alias
  !type
  [
    (call_expression
      function: [
        (field_expression object: (_) @receiver member: (identifier) @name)
        (identifier) @name
      ]) @reference.call
    (try_expression
      (call_expression
        function: [
          (field_expression object: (_) @receiver member: (identifier) @name)
          (identifier) @name
        ]) @reference.call)
    (catch_expression
      .
      (call_expression
        function: [
          (field_expression object: (_) @receiver member: (identifier) @name)
          (identifier) @name
        ]) @reference.call)
  ])

;; `!s.isBlank(x)`: the grammar reads `!s` as an error union type, so the receiver is
;; its `ok` side (this pattern must come before the generic one).
(call_expression
  function: (field_expression
    object: (error_union_type
      !error
      ok: (_) @receiver)
    member: (identifier) @name)) @reference.call

;; `c.area()`, `std.debug.print()`, `Circle.init()`
(call_expression
  function: (field_expression
    object: (_) @receiver
    member: (identifier) @name)) @reference.call

;; `fact(5)`
(call_expression
  function: (identifier) @name) @reference.call

;; ---------------------------------------------------------------------------
;; Callbacks: functions passed by name as arguments
;; ---------------------------------------------------------------------------

;; `map(xs, double)`, `sort(T, xs, {}, Type.lessThan)`, `map(xs, &double)`
(call_expression
  function: (_)
  (identifier) @name @reference.callback)

(call_expression
  function: (_)
  (field_expression
    object: (_) @receiver
    member: (identifier) @name) @reference.callback)

(call_expression
  function: (_)
  (unary_expression
    operator: "&"
    argument: (identifier) @name) @reference.callback)
