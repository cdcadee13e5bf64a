; MATLAB / Octave tags: classdef files (properties, methods, enumerations), function files
; with local and nested functions, calls (plain, obj.method(), Pkg.fn(), method@Super),
; function handles as callbacks, and `import pkg.*` statements.
; Specific patterns come before generic ones: the first match for a name node wins.

; ---------------------------------------------------------------------------
; Classes

; The extractor keeps the first match that tree-sitter *finishes* for a name node, and a
; match finishes at the last node its pattern needs. So the generic class and function
; patterns below end on the definition's last child (`(_) .`), after the specific ones
; (enumeration, help comment) have had their chance to finish.

; The help text of a class or function is the comment block right after its header.
; classdef Color < uint8 % help ... enumeration ... end
(class_definition
  name: (identifier) @name
  .
  (superclasses)
  .
  (comment) @doc
  (enumeration)) @definition.enum

(class_definition
  name: (identifier) @name
  .
  (comment) @doc
  (enumeration)) @definition.enum

(class_definition
  name: (identifier) @name
  (enumeration)) @definition.enum

(class_definition
  name: (identifier) @name
  .
  (superclasses)
  .
  (comment) @doc
  (_) .) @definition.class

(class_definition
  name: (identifier) @name
  .
  (comment) @doc
  (_) .) @definition.class

(class_definition
  name: (identifier) @name
  (_) .) @definition.class

(class_definition
  name: (identifier) @name .) @definition.class

; Superclasses: classdef Circle < Shape & matlab.mixin.Copyable (the last segment is the name)
(superclasses
  (property_name
    (identifier) @name .) @reference.type)

; Enumeration members: Red (1)
(enumeration
  (enum
    .
    (identifier) @name) @definition.constant)

; properties (Constant): TAU = 2 * pi; other properties are fields.
((properties
  (property
    name: (identifier) @name) @definition.constant) @_block
  (#match? @_block "^(?i)properties[ \t]*[(]([^)]*[^a-zA-Z0-9_])?constant[^a-zA-Z0-9_]"))

((properties
  (property
    name: (identifier) @name) @definition.field) @_block
  (#not-match? @_block "^(?i)properties[ \t]*[(]([^)]*[^a-zA-Z0-9_])?constant[^a-zA-Z0-9_]"))

; ---------------------------------------------------------------------------
; Functions and methods

; A function with its help text (the comment block right after the `function` line);
; without one, the comment block above the function is its doc.
(function_definition
  name: [(identifier) (property_name)] @name
  (comment) @doc) @definition.function

(function_definition
  name: [(identifier) (property_name)] @name
  (_) .) @definition.function

(function_definition
  name: [(identifier) (property_name)] @name .) @definition.function

; Method declared in a classdef `methods` block and defined in its own file.
(methods
  (function_signature
    name: (identifier) @name) @definition.method)

; ---------------------------------------------------------------------------
; Imports: import pkg.sub.*, import pkg.sub.fn

(command
  (command_name) @_cmd
  (command_argument) @name @import.module
  (#eq? @_cmd "import")) @reference.import

(function_call
  name: (identifier) @_cmd
  (arguments
    (string
      (string_content) @name @import.module))
  (#eq? @_cmd "import")) @reference.import

; ---------------------------------------------------------------------------
; Calls

; obj@Super(args) as a statement of a constructor whose output is obj: the superclass
; constructor call.
(function_definition
  (function_output
    (identifier) @_out)
  (block
    (function_call
      name: (identifier) @_obj
      (superclass
        (identifier) @name .)) @reference.call)
  (#eq? @_out @_obj))

; method@Super(obj, ...): a call of the superclass's method. A superclass constructor call
; in a constructor whose output is not named like this is left out above but shows here
; as a call of its output variable (cannot resolve).
(function_call
  name: (identifier) @name
  (superclass
    (identifier) @receiver .)
  (#not-any-of? @name "obj" "this" "self" "o" "h" "me" "object")) @reference.call

; feval('fn', ...): a call of fn by name.
(function_call
  name: (identifier) @_f
  (arguments
    .
    (string
      (string_content) @name))
  (#eq? @_f "feval")) @reference.call

; obj.method(...), Class.staticMethod(...), pkg.fn(...): the receiver is the segment right
; before the called name.
(field_expression
  object: (_) @receiver
  .
  field: (function_call
    name: (identifier) @name) @reference.call)

(field_expression
  field: (_) @receiver
  .
  field: (function_call
    name: (identifier) @name) @reference.call)

; fn(...) (MATLAB's syntax cannot tell a call from indexing a variable); not x@Super(...)
((function_call
  name: (identifier) @name) @reference.call
  (#not-match? @reference.call "^[A-Za-z_][A-Za-z0-9_]*[ \t]*@"))

; Command syntax: `hold on`, `disp hello`
(command
  (command_name) @name
  (#not-eq? @name "import")) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: function handles (@fn, @obj.method, @pkg.fn) wherever they appear, and
; names given as strings to str2func / cellfun.

(handle_operator
  (identifier) @receiver
  .
  (identifier) @name .) @reference.callback

(handle_operator
  .
  (identifier) @name .) @reference.callback

(function_call
  name: (identifier) @_f
  (arguments
    .
    (string
      (string_content) @name) @reference.callback)
  (#any-of? @_f "str2func" "cellfun"))
