; Rust tags query.
; Order matters: the first pattern that matches a node wins, so specific patterns
; come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

; `mod x { ... }` is a module; `mod x;` (no body) is an import of x.rs, below.
(mod_item
  name: (identifier) @name
  body: (_)) @definition.module

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.union

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

; `type Item;` declared in a trait
(associated_type
  name: (type_identifier) @name) @definition.type

; Functions; inside an `impl` scope or a trait they become methods.
(function_item
  name: (identifier) @name) @definition.function

; Trait method declarations without a body, `extern` block functions.
(function_signature_item
  name: (identifier) @name) @definition.function

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant

(macro_definition
  name: (identifier) @name) @definition.macro

; `impl Type` / `impl Trait for Type`: a scope named after the type.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @scope

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a
; parameter, a `let`, a struct field, a type parameter's bound), so that calls on the
; variable find the type. They come before the struct-literal type references. (A
; variable initialised by a call is the call's alias, under Calls.)
; ---------------------------------------------------------------------------

; fn f(repos: &[Repo], v: Vec<Repo>), let v: Vec<Repo>, struct fields: a container of the
; type (`for r in repos`, `repos.iter().map(|r| …)` and `repos[i]` give a `Repo`; `repos`
; itself is none)
(parameter
  pattern: (identifier) @import.alias
  type: [
    (array_type element: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ])
    (reference_type type: (array_type element: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ]))
    (generic_type
      type: (type_identifier) @_container
      type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ] .))
    (reference_type type: (generic_type
      type: (type_identifier) @_container
      type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ] .)))
  ] @binding.elements
  (#any-of? @_container "Vec" "VecDeque" "HashSet" "BTreeSet" "BinaryHeap" "LinkedList")) @reference.type

(let_declaration
  pattern: (identifier) @import.alias
  type: [
    (array_type element: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ])
    (reference_type type: (array_type element: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ]))
    (generic_type
      type: (type_identifier) @_container
      type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ] .))
    (reference_type type: (generic_type
      type: (type_identifier) @_container
      type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ] .)))
  ] @binding.elements
  (#any-of? @_container "Vec" "VecDeque" "HashSet" "BTreeSet" "BinaryHeap" "LinkedList")) @reference.type

; for r in repos, for r in repos.iter(), for &r in &repos: `r` is an element of what is iterated
(for_expression
  pattern: [
    (identifier) @import.alias
    (reference_pattern (identifier) @import.alias)
    (mut_pattern (identifier) @import.alias)
  ]
  value: (_) @name) @reference.iteration

; repos.iter().map(|r| …), .filter(|r| …), .for_each, .any, .all, .position, .find, …: the
; closure's parameter is an element of the receiver
(call_expression
  function: (field_expression
    value: (_) @name
    field: (field_identifier) @_adapter)
  arguments: (arguments .
    (closure_expression
      parameters: (closure_parameters .
        [
          (identifier) @import.alias
          (reference_pattern (identifier) @import.alias)
          (ref_pattern (identifier) @import.alias)
        ] .)))
  (#any-of? @_adapter "map" "for_each" "filter" "any" "all" "position" "find" "filter_map" "flat_map"
    "take_while" "skip_while" "inspect" "retain" "retain_mut" "max_by_key" "min_by_key" "find_map"
    "map_while" "partition" "sort_by_key" "sort_by_cached_key" "try_for_each" "rposition")) @reference.iteration

; fn f(c: &Circle, s: &dyn Shape, t: impl Shape)
(parameter
  pattern: (identifier) @import.alias
  type: [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
      (abstract_type trait: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (generic_type
        type: (type_identifier) @_wrap
        type_arguments: (type_arguments
          .
          [
            (type_identifier) @name
            (dynamic_type trait: (type_identifier) @name)
            (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
            (generic_type
              type: (type_identifier) @_wrap2
              type_arguments: (type_arguments
                .
                [
                  (type_identifier) @name
                  (dynamic_type trait: (type_identifier) @name)
                ]))
          ]))
      (reference_type type: [
        (type_identifier) @name
        (generic_type type: (type_identifier) @name)
        (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
        (abstract_type trait: (type_identifier) @name)
        (dynamic_type trait: (type_identifier) @name)
        (generic_type
        type: (type_identifier) @_wrap
        type_arguments: (type_arguments
          .
          [
            (type_identifier) @name
            (dynamic_type trait: (type_identifier) @name)
            (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
            (generic_type
              type: (type_identifier) @_wrap2
              type_arguments: (type_arguments
                .
                [
                  (type_identifier) @name
                  (dynamic_type trait: (type_identifier) @name)
                ]))
          ]))
      ])
    ]
  (#not-any-of? @name "Box" "Rc" "Arc" "Mutex" "RwLock" "RefCell" "Cell" "Option" "Vec" "HashMap" "String")
  (#any-of? @_wrap "Box" "Rc" "Arc" "Mutex" "RwLock" "RefCell" "Option")
  (#any-of? @_wrap2 "Mutex" "RwLock" "RefCell" "Box" "Option")) @reference.type

; let c: Circle = …
(let_declaration
  pattern: (identifier) @import.alias
  type: [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
      (abstract_type trait: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (generic_type
        type: (type_identifier) @_wrap
        type_arguments: (type_arguments
          .
          [
            (type_identifier) @name
            (dynamic_type trait: (type_identifier) @name)
            (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
            (generic_type
              type: (type_identifier) @_wrap2
              type_arguments: (type_arguments
                .
                [
                  (type_identifier) @name
                  (dynamic_type trait: (type_identifier) @name)
                ]))
          ]))
      (reference_type type: [
        (type_identifier) @name
        (generic_type type: (type_identifier) @name)
        (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
        (abstract_type trait: (type_identifier) @name)
        (dynamic_type trait: (type_identifier) @name)
        (generic_type
        type: (type_identifier) @_wrap
        type_arguments: (type_arguments
          .
          [
            (type_identifier) @name
            (dynamic_type trait: (type_identifier) @name)
            (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
            (generic_type
              type: (type_identifier) @_wrap2
              type_arguments: (type_arguments
                .
                [
                  (type_identifier) @name
                  (dynamic_type trait: (type_identifier) @name)
                ]))
          ]))
      ])
    ]
  (#not-any-of? @name "Box" "Rc" "Arc" "Mutex" "RwLock" "RefCell" "Cell" "Option" "Vec" "HashMap" "String")
  (#any-of? @_wrap "Box" "Rc" "Arc" "Mutex" "RwLock" "RefCell" "Option")
  (#any-of? @_wrap2 "Mutex" "RwLock" "RefCell" "Box" "Option")) @reference.type

; let c = Circle { … }
(let_declaration
  pattern: (identifier) @import.alias
  !type
  value: [
    (struct_expression
      name: [
        (type_identifier) @name
        (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
        (generic_type type: (type_identifier) @name)
      ])
    (reference_expression
      value: (struct_expression
        name: [
          (type_identifier) @name
          (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
        ]))
  ]) @reference.type

; struct fields: items: Vec<Item> (`for i in &self.items` gives an `Item`)
(field_declaration
  name: (field_identifier) @import.alias
  type: [
    (array_type element: [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ])
    (generic_type
      type: (type_identifier) @_container
      type_arguments: (type_arguments . [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    ] .))
  ] @binding.elements
  (#any-of? @_container "Vec" "VecDeque" "HashSet" "BTreeSet" "BinaryHeap" "LinkedList")) @reference.type

; struct fields: store: Store
(field_declaration
  name: (field_identifier) @import.alias
  type: [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
      (abstract_type trait: (type_identifier) @name)
      (dynamic_type trait: (type_identifier) @name)
      (generic_type
        type: (type_identifier) @_wrap
        type_arguments: (type_arguments
          .
          [
            (type_identifier) @name
            (dynamic_type trait: (type_identifier) @name)
            (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
            (generic_type
              type: (type_identifier) @_wrap2
              type_arguments: (type_arguments
                .
                [
                  (type_identifier) @name
                  (dynamic_type trait: (type_identifier) @name)
                ]))
          ]))
      (reference_type type: [
        (type_identifier) @name
        (generic_type type: (type_identifier) @name)
        (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
        (abstract_type trait: (type_identifier) @name)
        (dynamic_type trait: (type_identifier) @name)
        (generic_type
        type: (type_identifier) @_wrap
        type_arguments: (type_arguments
          .
          [
            (type_identifier) @name
            (dynamic_type trait: (type_identifier) @name)
            (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
            (generic_type
              type: (type_identifier) @_wrap2
              type_arguments: (type_arguments
                .
                [
                  (type_identifier) @name
                  (dynamic_type trait: (type_identifier) @name)
                ]))
          ]))
      ])
    ]
  (#not-any-of? @name "Box" "Rc" "Arc" "Mutex" "RwLock" "RefCell" "Cell" "Option" "Vec" "HashMap" "String")
  (#any-of? @_wrap "Box" "Rc" "Arc" "Mutex" "RwLock" "RefCell" "Option")
  (#any-of? @_wrap2 "Mutex" "RwLock" "RefCell" "Box" "Option")) @reference.type

; <T: Shape>
(type_parameter
  name: (type_identifier) @import.alias
  bounds: (trait_bounds . [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
  ])) @reference.type

; ---------------------------------------------------------------------------
; Type references: implemented traits and supertraits (inheritance)
; ---------------------------------------------------------------------------

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))
  ] @reference.implementation)

(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name
      (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
      (generic_type type: (type_identifier) @name)
      (generic_type type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))
    ] @reference.type))

; Struct literals `Circle { r, .. }`: a use of the type (Rust has no constructors).
(struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)
    (generic_type type: (type_identifier) @name)
  ]) @reference.type

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

; `mod helpers;`
(mod_item
  name: (identifier) @name @import.module
  !body) @reference.import

; `extern crate foo as bar;`
(extern_crate_declaration
  name: (identifier) @name @import.module
  alias: (identifier)? @import.alias) @reference.import

; `use a::b::C as D;`
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      path: (_) @import.module
      name: (identifier) @name)
    alias: (identifier) @import.alias)) @reference.import

; `use foo as bar;`
(use_declaration
  argument: (use_as_clause
    path: (identifier) @name @import.module
    alias: (identifier) @import.alias)) @reference.import

; `use a::b::C;`
(use_declaration
  argument: (scoped_identifier
    path: (_) @import.module
    name: (identifier) @name)) @reference.import

; `use foo;`
(use_declaration
  argument: (identifier) @name @import.module) @reference.import

; `use a::b::*;` (anywhere, also inside groups): the module itself.
(use_wildcard
  [
    (identifier)
    (scoped_identifier)
    (crate)
    (super)
    (self)
  ] @import.module
  "*" @name) @reference.import

; Groups `use a::b::{self, C, D as E, f::G};`: the module is the group's path.
(scoped_use_list
  path: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ] @import.module
  list: (use_list (self))) @reference.import

(scoped_use_list
  path: [
    (identifier) @name
    (scoped_identifier name: (identifier) @name)
  ] @import.module
  list: (use_list
    (use_as_clause
      path: (self)
      alias: (identifier) @import.alias))) @reference.import

(scoped_use_list
  path: (_) @import.module
  list: (use_list
    (use_as_clause
      path: (identifier) @name
      alias: (identifier) @import.alias))) @reference.import

; `f::G as H` inside a group: the module is the inner path `f`.
(use_list
  (use_as_clause
    path: (scoped_identifier
      path: (_) @import.module
      name: (identifier) @name)
    alias: (identifier) @import.alias)) @reference.import

(scoped_use_list
  path: (_) @import.module
  list: (use_list (identifier) @name)) @reference.import

(use_list
  (scoped_identifier
    path: (_) @import.module
    name: (identifier) @name)) @reference.import

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; `let c = Circle::new(…)`, `let c = open(…)?`, `let c = self.pool.get()`: the call's
; @import.alias is the variable that holds its result (the resolver types calls on it).
; Same names and receivers as the generic patterns below, which they precede.
(let_declaration
  pattern: (identifier) @import.alias
  !type
  value: [
    (call_expression
      function: [
        (identifier) @name
        (scoped_identifier path: (_) @receiver name: (identifier) @name)
        (field_expression value: (_) @receiver field: (field_identifier) @name)
      ]) @reference.call
    (try_expression
      (call_expression
        function: [
          (identifier) @name
          (scoped_identifier path: (_) @receiver name: (identifier) @name)
          (field_expression value: (_) @receiver field: (field_identifier) @name)
        ]) @reference.call)
  ])

; `self.m()`, `obj.field.m()`, `x.iter().map(f)`
(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; `Type::f()`, `Self::f()`, `module::f()`, `<T as Trait>::f()`
(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

; `f()`
(call_expression
  function: (identifier) @name) @reference.call

; turbofish: `x.collect::<Vec<_>>()`, `Type::f::<T>()`, `f::<T>()`
(call_expression
  function: (generic_function
    function: (field_expression
      value: (_) @receiver
      field: (field_identifier) @name))) @reference.call

(call_expression
  function: (generic_function
    function: (scoped_identifier
      path: (_) @receiver
      name: (identifier) @name))) @reference.call

(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call

; Macro invocations `println!(..)`, `log::info!(..)`
(macro_invocation
  macro: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

(macro_invocation
  macro: (identifier) @name) @reference.call

; Calls written inside macro arguments (token trees are not parsed as expressions):
; `format!("{}", self.area())`, `println!("{}", fact(5))`, `assert!(Type::ok(x))`.
; `parser("x").parse()` inside `assert_eq!(…)`: the receiver is the call `parser("x")`
; (one capture on two nodes is the text from the first to the last).
(token_tree
  (identifier) @receiver
  .
  (token_tree) @receiver
  .
  "."
  .
  (identifier) @name
  .
  (token_tree) @_args
  (#match? @_args "^\\(")) @reference.call

; (Any other receiver is a method's too, never a bare call of a function of that name.)
(token_tree
  [(_) "?"] @receiver
  .
  "."
  .
  (identifier) @name
  .
  (token_tree) @_args
  (#match? @_args "^\\(")) @reference.call

(token_tree
  [(identifier) (primitive_type) (self) (super) (crate)] @receiver
  .
  "::"
  .
  (identifier) @name
  .
  (token_tree) @_args
  (#match? @_args "^\\(")) @reference.call

; `f(…)`, but not `fn f(…)` or `struct S(…)` written in a macro's body (a definition),
; nor `.f(…)` (a method: the patterns above). The token before it is captured, anonymous
; ones (`(`, `,`, `fn`) included.
(token_tree
  _ @_before
  .
  (identifier) @name
  .
  (token_tree) @_args
  (#match? @_args "^\\(")
  (#not-match? @_before "^(fn|struct|\\.)$")) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name as arguments
; ---------------------------------------------------------------------------

; `map(Circle::area)`, `spawn(self::worker)`
(arguments
  (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name) @reference.callback)

; `map(one)`, `spawn(worker)`
(arguments
  (identifier) @name @reference.callback)

; `register(&handler)`
(arguments
  (reference_expression
    value: (identifier) @name) @reference.callback)
