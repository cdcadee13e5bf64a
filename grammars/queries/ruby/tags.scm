; Ruby tags.
;
; `#` comments right above a definition are found by the extractor itself.
; Ruby calls a method without parentheses or arguments with a bare identifier
; (`area`, `"#{name}"`), which the grammar cannot tell from a local variable: bare
; identifiers in value positions are taken as calls and the graph keeps those that
; resolve to a method.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

; class Foo, class Foo::Bar (the qualified name as written)
(class
  name: [
    (constant)
    (scope_resolution)
  ] @name) @definition.class

(module
  name: [
    (constant)
    (scope_resolution)
  ] @name) @definition.module

; methods of a module (mixins): methods, not functions
(module
  body: (body_statement
    (method
      name: (_) @name) @definition.method))

; def foo: a function at the top level, a method in a class (the extractor decides)
(method
  name: (_) @name) @definition.function

; def self.foo
(singleton_method
  name: (_) @name) @definition.method

; alias to_s describe
(alias
  name: (_) @name) @definition.method

; Point = Struct.new(:x, :y)
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_struct
    method: (identifier) @_new)
  (#match? @_struct "^(Struct|Data)$")
  (#match? @_new "^(new|define)$")) @definition.class

; TAU = Math::PI * 2
(assignment
  left: (constant) @name
  right: (_) @_value
  (#not-match? @_value "^(Struct|Data)\\.(new|define)")) @definition.constant

; square = ->(x) { x * x }, square = lambda { |x| x * x }
(assignment
  left: (identifier) @name
  right: (lambda)) @definition.function

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; require "json", require_relative "support/drawing", load "config.rb"
(call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string
      .
      (string_content) @name @import.module .))
  (#match? @_require "^(require|require_relative|load|autoload)$")) @reference.import

; ---------------------------------------------------------------------------
; Types: superclasses and mixins
; ---------------------------------------------------------------------------

(superclass
  (constant) @name @reference.type)

(superclass
  (scope_resolution
    scope: (_) @receiver
    name: (constant) @name @reference.type))

; include Drawable, extend Forwardable, prepend Logging
(call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    [
      (constant) @name @reference.type
      (scope_resolution
        scope: (_) @receiver
        name: (constant) @name @reference.type)
    ])
  (#match? @_mixin "^(include|extend|prepend)$"))

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; Foo.new(…) and Mod::Foo.new(…): a constructor call, named after the class
(call
  receiver: (constant) @name
  method: (identifier) @_new
  (#eq? @_new "new")) @reference.call

(call
  receiver: (scope_resolution
    scope: (_) @receiver
    name: (constant) @name)
  method: (identifier) @_new
  (#eq? @_new "new")) @reference.call

; obj.m, self.m, Foo.m, Foo::m, obj&.m
(call
  receiver: (_) @receiver
  method: [
    (identifier)
    (constant)
  ] @name
  (#not-eq? @name "new")) @reference.call

; m(…), m arg, Integer("3"); class-body macros and requires are left out
(call
  !receiver
  method: [
    (identifier)
    (constant)
  ] @name
  (#not-match? @name "^(require|require_relative|load|autoload|include|extend|prepend|attr_reader|attr_writer|attr_accessor|private|protected|public|module_function|private_constant|alias_method)$")) @reference.call

; super, super(…): the same method of the superclass
(super) @name @reference.call

; bare identifiers in value positions: calls of methods without arguments
([
  (body_statement (identifier) @name @reference.call)
  (block_body (identifier) @name @reference.call)
  (then (identifier) @name @reference.call)
  (else (identifier) @name @reference.call)
  (begin (identifier) @name @reference.call)
  (ensure (identifier) @name @reference.call)
  (do (identifier) @name @reference.call)
  (parenthesized_statements (identifier) @name @reference.call)
  (interpolation (identifier) @name @reference.call)
  (binary left: (identifier) @name @reference.call)
  (binary right: (identifier) @name @reference.call)
  (unary operand: (identifier) @name @reference.call)
  (call receiver: (identifier) @name @reference.call)
  (assignment right: (identifier) @name @reference.call)
  (operator_assignment right: (identifier) @name @reference.call)
  (conditional condition: (identifier) @name @reference.call)
  (conditional consequence: (identifier) @name @reference.call)
  (conditional alternative: (identifier) @name @reference.call)
  (if condition: (identifier) @name @reference.call)
  (elsif condition: (identifier) @name @reference.call)
  (unless condition: (identifier) @name @reference.call)
  (while condition: (identifier) @name @reference.call)
  (until condition: (identifier) @name @reference.call)
  (if_modifier condition: (identifier) @name @reference.call)
  (unless_modifier condition: (identifier) @name @reference.call)
  (case value: (identifier) @name @reference.call)
  (array (identifier) @name @reference.call)
  (pair value: (identifier) @name @reference.call)
  (element_reference object: (identifier) @name @reference.call)
  (range begin: (identifier) @name @reference.call)
  (range end: (identifier) @name @reference.call)
  (method body: (identifier) @name @reference.call)
]
  (#not-match? @name "^(private|protected|public|module_function|binding|block_given\\?|__method__)$"))

; ---------------------------------------------------------------------------
; Local variables
; ---------------------------------------------------------------------------

; x = …, x ||= …, a, b = …: from here on a bare `x` reads the variable and calls no method
; named x (a binding of a type not known: its "type" is the operator).
(assignment
  left: (identifier) @import.alias
  "=" @name) @reference.type

(assignment
  left: (left_assignment_list (identifier) @import.alias)
  "=" @name) @reference.type

(operator_assignment
  left: (identifier) @import.alias
  operator: _ @name) @reference.type

; each { |k, v| … }, ->(x) { … }, rescue => e: the parameters are locals of the block
[
  (block_parameters (identifier) @import.alias)
  (lambda_parameters (identifier) @import.alias)
  (exception_variable (identifier) @import.alias)
] @name @reference.type

; ---------------------------------------------------------------------------
; Callbacks: methods passed by name
; ---------------------------------------------------------------------------

; foo(bar): bar is a local variable (a binding above says so) or a method called without
; parentheses (Ruby has no other value a bare name can be)
(argument_list
  (identifier) @name @reference.call)

; each(&handler), map(&:area)
(block_argument
  [
    (identifier)
    (simple_symbol)
  ] @name @reference.callback)

; method(:puts), obj.method(:name)
(call
  method: (identifier) @_method
  arguments: (argument_list
    .
    (simple_symbol) @name @reference.callback)
  (#match? @_method "^(method|public_method|instance_method)$"))
