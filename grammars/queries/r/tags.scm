; R tags: functions are assignments of `function(...)` to names; R6 / reference / S4
; classes come from R6Class / setRefClass / setClass; library / require / source /
; import::from / box::use are imports. Specific patterns come before generic ones.

; ---------------------------------------------------------------------------
; Classes

; Shape <- R6Class("Shape", ...), Acc <- setRefClass("Acc", ...), Gen <- setClass(...)
(binary_operator
  lhs: [(identifier) (string)] @name
  operator: ["<-" "=" "<<-"]
  rhs: (call
    function: [
      (identifier) @_ctor
      (namespace_operator rhs: (identifier) @_ctor)
    ])
  (#any-of? @_ctor "R6Class" "setRefClass" "setClass")) @definition.class

; R6Class("Shape", ...) -> Shape (right-assigned)
(binary_operator
  lhs: (call
    function: [
      (identifier) @_ctor
      (namespace_operator rhs: (identifier) @_ctor)
    ])
  operator: ["->" "->>"]
  rhs: (identifier) @name
  (#any-of? @_ctor "R6Class" "setRefClass" "setClass")) @definition.class

; setClass("Square", ...) at top level, not assigned: the class is named by its string.
(program
  (call
    function: [
      (identifier) @_ctor
      (namespace_operator rhs: (identifier) @_ctor)
    ]
    arguments: (arguments
      .
      (argument
        !name
        value: (string) @name))
    (#any-of? @_ctor "R6Class" "setRefClass" "setClass")) @definition.class)

; Base classes: R6Class(inherit = Base), setRefClass / setClass(contains = "Base")
(call
  function: [
    (identifier) @_ctor
    (namespace_operator rhs: (identifier) @_ctor)
  ]
  arguments: (arguments
    (argument
      name: (identifier) @_arg
      value: [(identifier) (string)] @name) @reference.type)
  (#any-of? @_ctor "R6Class" "setRefClass" "setClass")
  (#any-of? @_arg "inherit" "contains"))

(call
  function: [
    (identifier) @_ctor
    (namespace_operator rhs: (identifier) @_ctor)
  ]
  arguments: (arguments
    (argument
      name: (identifier) @_arg
      value: (call
        function: (identifier) @_c
        arguments: (arguments
          (argument value: (string) @name) @reference.type))))
  (#any-of? @_ctor "setRefClass" "setClass")
  (#eq? @_arg "contains")
  (#eq? @_c "c"))

; Methods: R6Class(public = list(m = function() ...)), setRefClass(methods = list(...))
(call
  function: [
    (identifier) @_ctor
    (namespace_operator rhs: (identifier) @_ctor)
  ]
  arguments: (arguments
    (argument
      name: (identifier) @_sec
      value: (call
        function: (identifier) @_list
        arguments: (arguments
          (argument
            name: [(identifier) (string)] @name
            value: (function_definition)) @definition.method))))
  (#any-of? @_ctor "R6Class" "setRefClass")
  (#any-of? @_sec "public" "private" "active" "methods")
  (#eq? @_list "list"))

; Fields: R6Class(public = list(x = 0)), setRefClass(fields = list(x = "numeric"))
(call
  function: [
    (identifier) @_ctor
    (namespace_operator rhs: (identifier) @_ctor)
  ]
  arguments: (arguments
    (argument
      name: (identifier) @_sec
      value: (call
        function: (identifier) @_list
        arguments: (arguments
          (argument
            name: [(identifier) (string)] @name
            value: [
              (float) (integer) (complex) (string) (true) (false) (null) (na) (inf) (nan)
              (identifier) (binary_operator) (unary_operator) (call) (namespace_operator)
              (extract_operator) (subset) (subset2) (parenthesized_expression)
            ]) @definition.field))))
  (#any-of? @_ctor "R6Class" "setRefClass")
  (#any-of? @_sec "public" "private" "active" "fields")
  (#any-of? @_list "list" "c"))

; Acc$methods(deposit = function(x) ...): methods added after the class.
(call
  function: (extract_operator
    rhs: (identifier) @_m)
  arguments: (arguments
    (argument
      name: [(identifier) (string)] @name
      value: (function_definition)) @definition.method)
  (#eq? @_m "methods"))

; S4: setGeneric("area", function(obj) ...) and setMethod("area", "Circle", function(obj) ...)
(call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: (string) @name))
  (#eq? @_f "setGeneric")) @definition.function

(call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: (string) @name))
  (#any-of? @_f "setMethod" "setReplaceMethod" "setValidity")) @definition.method

; ---------------------------------------------------------------------------
; Functions and constants

; f <- function(x) ..., f = function(x) ..., f <<- function(x) ..., "f" <- function(x) ...
(binary_operator
  lhs: [(identifier) (string)] @name
  operator: ["<-" "=" "<<-" ":="]
  rhs: (function_definition)) @definition.function

; (function(x) ...) -> f
(binary_operator
  lhs: [
    (function_definition)
    (parenthesized_expression body: (function_definition))
  ]
  operator: ["->" "->>"]
  rhs: (identifier) @name) @definition.function

; env$f <- function(x) ..., self$handler <- function() ...
(binary_operator
  lhs: (extract_operator
    operator: "$"
    rhs: (identifier) @name)
  operator: ["<-" "=" "<<-"]
  rhs: (function_definition)) @definition.function

; Top-level ALL_CAPS assignments of values are constants: TAU <- 2 * pi, COLORS <- c(...)
; (not of functions or classes, defined above).
(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "=" "<<-"]
    rhs: [
      (float) (integer) (complex) (string) (true) (false) (null) (na) (inf) (nan)
      (identifier) (binary_operator) (unary_operator) (parenthesized_expression)
      (namespace_operator) (extract_operator) (subset) (subset2)
    ]
    (#match? @name "^[A-Z][A-Z0-9_.]*$")) @definition.constant)

(program
  (binary_operator
    lhs: (identifier) @name
    operator: ["<-" "=" "<<-"]
    rhs: (call
      function: [
        (identifier) @_f
        (namespace_operator rhs: (identifier) @_f)
      ])
    (#match? @name "^[A-Z][A-Z0-9_.]*$")
    (#not-any-of? @_f "R6Class" "setRefClass" "setClass")) @definition.constant)

; ---------------------------------------------------------------------------
; Imports

; library(pkg), library("pkg"), require(pkg), requireNamespace("pkg"), loadNamespace("pkg")
(call
  function: [
    (identifier) @_f
    (namespace_operator rhs: (identifier) @_f)
  ]
  arguments: (arguments
    .
    (argument
      value: [(identifier) (string)] @name @import.module))
  (#any-of? @_f "library" "require" "requireNamespace" "loadNamespace" "attachNamespace")) @reference.import

; source("helpers.R"), sys.source("helpers.R")
(call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: (string) @name @import.module))
  (#any-of? @_f "source" "sys.source")) @reference.import

; import::from(pkg, name, alias = name)
(call
  function: (namespace_operator
    lhs: (identifier) @_ns
    rhs: (identifier) @_f)
  arguments: (arguments
    .
    (argument
      value: [(identifier) (string)] @import.module)
    (argument
      name: (identifier) @import.alias
      value: [(identifier) (string)] @name))
  (#eq? @_ns "import")
  (#any-of? @_f "from" "into")
  (#not-match? @import.alias "^[.]")) @reference.import

(call
  function: (namespace_operator
    lhs: (identifier) @_ns
    rhs: (identifier) @_f)
  arguments: (arguments
    .
    (argument
      value: [(identifier) (string)] @import.module)
    (argument
      !name
      value: [(identifier) (string)] @name))
  (#eq? @_ns "import")
  (#any-of? @_f "from" "into")) @reference.import

; box::use(alias = pkg), box::use(pkg)
(call
  function: (namespace_operator
    lhs: (identifier) @_ns
    rhs: (identifier) @_f)
  arguments: (arguments
    (argument
      name: (identifier) @import.alias
      value: (identifier) @name @import.module))
  (#eq? @_ns "box")
  (#eq? @_f "use")) @reference.import

(call
  function: (namespace_operator
    lhs: (identifier) @_ns
    rhs: (identifier) @_f)
  arguments: (arguments
    (argument
      !name
      value: (identifier) @name @import.module))
  (#eq? @_ns "box")
  (#eq? @_f "use")) @reference.import

; ---------------------------------------------------------------------------
; Calls

; new("Circle", ...) constructs the S4 class Circle.
(call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: (string) @name))
  (#eq? @_f "new")) @reference.call

; do.call("f", args), match.fun("f"): a call of f by name.
(call
  function: (identifier) @_f
  arguments: (arguments
    .
    (argument
      value: (string) @name))
  (#any-of? @_f "do.call" "match.fun")) @reference.call

; pkg::f(x), pkg:::f(x)
(call
  function: (namespace_operator
    lhs: (_) @receiver
    rhs: (identifier) @name)) @reference.call

; obj$method(x), self$m(), super$m(), private$m(), Circle$new()
(call
  function: (extract_operator
    lhs: (_) @receiver
    operator: "$"
    rhs: (identifier) @name)) @reference.call

; f(x)
(call
  function: (identifier) @name) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: a function passed by name as an argument (lapply(xs, f), do.call(f, args),
; Map(pkg::f, xs), Reduce(self$combine, xs)). Imports and class definitions excluded.

(call
  function: [
    (identifier) @_f
    (namespace_operator rhs: (identifier) @_f)
  ]
  arguments: (arguments
    (argument
      value: (identifier) @name) @reference.callback)
  (#not-any-of? @_f "library" "require" "requireNamespace" "loadNamespace" "attachNamespace"
    "from" "into" "use" "R6Class" "setRefClass" "setClass" "c" "list" "return" "invisible"
    "print" "cat" "paste" "paste0" "length" "is.null" "missing" "stop" "warning" "message"))

(call
  function: (extract_operator)
  arguments: (arguments
    (argument
      value: (identifier) @name) @reference.callback))

; pkg::f as an argument
(call
  arguments: (arguments
    (argument
      value: (namespace_operator
        lhs: (_) @receiver
        rhs: (identifier) @name)) @reference.callback))

; self$m / private$m / super$m as an argument (not obj$x in general: in R that is
; overwhelmingly a data column or list element, not a function)
(call
  arguments: (arguments
    (argument
      value: (extract_operator
        lhs: (identifier) @receiver
        operator: "$"
        rhs: (identifier) @name)) @reference.callback)
  (#any-of? @receiver "self" "private" "super" ".self"))
