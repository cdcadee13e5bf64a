; PHP tags.
;
; `/** … */` and `//` comments right above a definition (above its `#[attributes]`)
; are found by the extractor itself.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(namespace_definition
  name: (namespace_name) @name) @definition.module

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(enum_case
  name: (name) @name) @definition.constant

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method

; const TAU = …; (top level, namespace or class)
(const_declaration
  (const_element
    (name) @name)) @definition.constant

; define('UNIT', 1);
(expression_statement
  (function_call_expression
    function: (name) @_define
    arguments: (arguments
      .
      (argument
        (string
          (string_content) @name))))
  (#eq? @_define "define")) @definition.constant

; $square = fn($x) => $x * $x; $square = function ($x) { … };
(expression_statement
  (assignment_expression
    left: (variable_name
      (name) @name)
    right: [
      (arrow_function)
      (anonymous_function)
    ]) @definition.function)

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; use App\Models\User; use function App\f; use const App\X;
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name
      prefix: (namespace_name) @import.module
      (name) @name)
    !alias)) @reference.import

; use App\Models\User as U;
(namespace_use_declaration
  (namespace_use_clause
    (qualified_name
      prefix: (namespace_name) @import.module
      (name) @name)
    alias: (name) @import.alias)) @reference.import

; use Exception; (a name from the global namespace)
(namespace_use_declaration
  (namespace_use_clause
    .
    (name) @name @import.module
    !alias)) @reference.import

(namespace_use_declaration
  (namespace_use_clause
    .
    (name) @name @import.module
    alias: (name) @import.alias)) @reference.import

; use App\Models\{User, Post as P};
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause
      .
      [
        (name) @name
        (qualified_name (name) @name)
      ]
      !alias))) @reference.import

(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause
      .
      [
        (name) @name
        (qualified_name (name) @name)
      ]
      alias: (name) @import.alias))) @reference.import

; require 'a.php'; include_once __DIR__ . '/b.php';
([
  (require_expression)
  (require_once_expression)
  (include_expression)
  (include_once_expression)
]
  [
    (string (string_content) @name @import.module)
    (encapsed_string (string_content) @name @import.module)
    (binary_expression
      right: [
        (string (string_content) @name @import.module)
        (encapsed_string (string_content) @name @import.module)
      ])
  ]) @reference.import

; ---------------------------------------------------------------------------
; Types: base classes, interfaces, traits, type hints
; ---------------------------------------------------------------------------

([
  (base_clause (name) @name @reference.type)
  (class_interface_clause (name) @name @reference.type)
  (use_declaration (name) @name @reference.type)
  (named_type (name) @name @reference.type)
])

([
  (base_clause
    (qualified_name
      prefix: (_) @receiver
      (name) @name @reference.type))
  (class_interface_clause
    (qualified_name
      prefix: (_) @receiver
      (name) @name @reference.type))
  (use_declaration
    (qualified_name
      prefix: (_) @receiver
      (name) @name @reference.type))
  (named_type
    (qualified_name
      prefix: (_) @receiver
      (name) @name @reference.type))
])

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; f(), strlen(...)
(function_call_expression
  function: (name) @name) @reference.call

; App\f(), \App\f()
(function_call_expression
  function: (qualified_name
    prefix: (_) @receiver
    (name) @name)) @reference.call

; $closure()
(function_call_expression
  function: (variable_name
    (name) @name)) @reference.call

; $this->m(), $obj->m(), $obj?->m()
(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

; Foo::m(), self::m(), static::m(), parent::m()
(scoped_call_expression
  scope: (_) @receiver
  name: (name) @name) @reference.call

; new Foo(), new \App\Foo()
(object_creation_expression
  (name) @name) @reference.call

(object_creation_expression
  (qualified_name
    prefix: (_) @receiver
    (name) @name)) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name
; ---------------------------------------------------------------------------

; A `$variable` argument is never a function by name (it may hold a closure, but its
; name is a variable's): only callables written as names are captured.

; [$this, 'method'], [self::class, 'method'], [Foo::class, 'method']
(arguments
  (argument
    (array_creation_expression
      .
      (array_element_initializer
        [
          (variable_name)
          (class_constant_access_expression)
        ] @receiver)
      .
      (array_element_initializer
        (string
          (string_content) @name @reference.callback))
      .)))

; usort($xs, 'compare'): a function named in a string, for the standard callable-taking functions
(function_call_expression
  function: (name) @_takes_callable
  arguments: (arguments
    (argument
      (string
        (string_content) @name @reference.callback)))
  (#match? @_takes_callable "^(array_map|array_filter|array_walk|array_walk_recursive|array_reduce|usort|uasort|uksort|call_user_func|call_user_func_array|is_callable|register_shutdown_function|spl_autoload_register|set_error_handler|set_exception_handler|iterator_apply|preg_replace_callback)$")
  (#match? @name "^[A-Za-z_][A-Za-z0-9_]*$"))
