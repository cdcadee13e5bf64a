; C++ tags query (generated shapes of declarators are spelled out: tree-sitter
; queries have no recursion).
; Order matters: the first pattern that matches a node wins, so specific patterns
; come before generic ones.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name
  body: (_)) @definition.namespace

; Doc comments of templates: the generic rule stops at the template parameter list,
; so the comments right above `template <...>` are captured here.
(
  (comment)+ @doc
  .
  (template_declaration
    [
      (class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.class
      (struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.struct
      (union_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)] body: (_)) @definition.union
      (alias_declaration name: (type_identifier) @name) @definition.type
      (concept_definition name: (identifier) @name) @definition.type
    ])
)

(
  (comment)+ @doc
  .
  (template_declaration
    (function_definition
      declarator: [
    (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))])
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))]))
    (reference_declarator (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))]))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))])))
  ]) @definition.function)
)

; Classes, structs, unions, enums (with a body), specializations included.
(class_specifier
  name: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
  ]
  body: (_)) @definition.class

(struct_specifier
  name: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
  ]
  body: (_)) @definition.struct

(union_specifier
  name: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
  ]
  body: (_)) @definition.union

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

(enumerator
  name: (identifier) @name) @definition.constant

; Out-of-line member definitions `R ns::Circle::area() const { ... }`: each qualifier
; is a scope over the definition (outermost first), so the function is qualified by
; it and becomes a method. These patterns must come before the definition's.

(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)]))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)])))
    (reference_declarator (function_declarator declarator: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)])))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)]))))
  ]) @scope

(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)])))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)]))))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)]))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)])))))
  ]) @scope

(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)]))))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)])))))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)])))))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: (qualified_identifier scope: [(namespace_identifier) @name (template_type name: (type_identifier) @name)]))))))
  ]) @scope

; Function and method definitions: free functions, inline methods, constructors,
; destructors, operators, out-of-line definitions.
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))])
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))]))
    (reference_declarator (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))]))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]) (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])) (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))])))
  ]) @definition.function

; Pure virtual member declarations `virtual void draw() const = 0;`: interface methods
; (other member prototypes are skipped: their definitions are captured where they are).
(field_declaration
  declarator: [
    (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]))
    (reference_declarator (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name]))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name])))
  ]
  default_value: (number_literal)) @definition.function

; Lambdas bound to a name: `auto twice = [](double x) { ... };`
(declaration
  declarator: (init_declarator
    declarator: (identifier) @name
    value: (lambda_expression))) @definition.function

; Static constant members `static constexpr int kSides = 0;`
(field_declaration
  (type_qualifier) @_const
  declarator: (field_identifier) @name
  default_value: (_)
  (#match? @_const "^(const|constexpr|constinit)$")) @definition.constant

; Type aliases and typedefs
(alias_declaration
  name: (type_identifier) @name) @definition.type

(concept_definition
  name: (identifier) @name) @definition.type

(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  type: [
    (struct_specifier name: (_) body: (_))
    (class_specifier name: (_) body: (_))
    (union_specifier name: (_) body: (_))
    (enum_specifier name: (_) body: (_))
  ]
  declarator: (type_identifier) @name @definition.type)

(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

; Macros (a `#define X` without a value, such as an include guard, is a flag).
(preproc_function_def
  name: (identifier) @name) @definition.macro

(preproc_def
  name: (identifier) @name
  value: (_)) @definition.macro

; Namespace-scope constants and variables (not in functions or classes, not `extern`).

(translation_unit
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$"))

(preproc_ifdef
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$"))

(preproc_if
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$"))

(preproc_else
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$"))

(preproc_elif
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$"))

(declaration_list
  (declaration
    (type_qualifier) @_const
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @definition.constant
  (#match? @_const "^(const|constexpr|constinit)$"))

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
          (reference_declarator (identifier) @name)
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
          (reference_declarator (identifier) @name)
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
          (reference_declarator (identifier) @name)
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
          (reference_declarator (identifier) @name)
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
          (reference_declarator (identifier) @name)
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
          (reference_declarator (identifier) @name)
          (array_declarator declarator: (identifier) @name)
        ])
    ]) @definition.variable @_decl
  (#not-match? @_decl "^extern"))

; ---------------------------------------------------------------------------
; Imports
; ---------------------------------------------------------------------------

(preproc_include
  path: (_) @name @import.module) @reference.import

; `using namespace std;`: the whole namespace
(using_declaration
  "namespace"
  [(identifier) (qualified_identifier)] @name @import.module) @reference.import

; `using std::vector;`, `using a::b::c;` (the module is the innermost qualifier)
(using_declaration
  [
    (qualified_identifier
      scope: (_) @import.module
      name: (identifier) @name)
    (qualified_identifier
      name: (qualified_identifier
        scope: (_) @import.module
        name: (identifier) @name))
    (qualified_identifier
      name: (qualified_identifier
        name: (qualified_identifier
          scope: (_) @import.module
          name: (identifier) @name)))
  ]) @reference.import

; `namespace fs = std::filesystem;`
(namespace_alias_definition
  name: (namespace_identifier) @import.alias
  [(namespace_identifier) (nested_namespace_specifier)] @name @import.module) @reference.import

; ---------------------------------------------------------------------------
; Bindings: a type reference whose @import.alias is the variable it types (a local, a
; parameter, a member; through a pointer or a reference), so that calls on the variable
; find the type: `Plan* plan_; … plan_->Finish()`, `const Node& n`, `ns::Builder b(…)`.
; ---------------------------------------------------------------------------

(declaration
  type: [
    (type_identifier) @name
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
  ]
  declarator: [
    (identifier) @import.alias
    (pointer_declarator declarator: (identifier) @import.alias)
    (reference_declarator (identifier) @import.alias)
    (init_declarator declarator: [
      (identifier) @import.alias
      (pointer_declarator declarator: (identifier) @import.alias)
      (reference_declarator (identifier) @import.alias)
    ])
  ]
  (#not-match? @name "^(const_)?(reverse_)?iterator$")) @reference.type

(parameter_declaration
  type: [
    (type_identifier) @name
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
  ]
  declarator: [
    (identifier) @import.alias
    (pointer_declarator declarator: (identifier) @import.alias)
    (reference_declarator (identifier) @import.alias)
  ]) @reference.type

(optional_parameter_declaration
  type: [
    (type_identifier) @name
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
  ]
  declarator: [
    (identifier) @import.alias
    (pointer_declarator declarator: (identifier) @import.alias)
    (reference_declarator (identifier) @import.alias)
  ]) @reference.type

; `for (const Node* input : edge->inputs_)`
(for_range_loop
  type: [
    (type_identifier) @name
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
  ]
  declarator: [
    (identifier) @import.alias
    (pointer_declarator declarator: (identifier) @import.alias)
    (reference_declarator (identifier) @import.alias)
  ]) @reference.type

(field_declaration
  type: [
    (type_identifier) @name
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
  ]
  declarator: [
    (field_identifier) @import.alias
    (pointer_declarator declarator: (field_identifier) @import.alias)
    (reference_declarator (field_identifier) @import.alias)
  ]) @reference.type

; Containers: a variable, parameter or member of a standard sequence or set type, or an
; iterator of one, is a container binding of its element type (`@binding.elements`: the alias
; gets `[]`): `std::vector<Node*> nodes; nodes[i]->path()`, `for (vector<Edge*>::iterator e =
; …) (*e)->Dump()`. A map's elements are its values (`rules_["x"]->name()`).

(declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: [
    (identifier) @import.alias
    (reference_declarator (identifier) @import.alias)
    (init_declarator declarator: [
      (identifier) @import.alias
      (reference_declarator (identifier) @import.alias)
    ])
  ]
  (#match? @_container "^(vector|list|deque|forward_list|set|multiset|unordered_set|unordered_multiset|array|span|initializer_list|queue|priority_queue|stack)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(parameter_declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: [
    (identifier) @import.alias
    (reference_declarator (identifier) @import.alias)
  ]
  (#match? @_container "^(vector|list|deque|forward_list|set|multiset|unordered_set|unordered_multiset|array|span|initializer_list|queue|priority_queue|stack)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(optional_parameter_declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: [
    (identifier) @import.alias
    (reference_declarator (identifier) @import.alias)
  ]
  (#match? @_container "^(vector|list|deque|forward_list|set|multiset|unordered_set|unordered_multiset|array|span|initializer_list|queue|priority_queue|stack)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(field_declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: (field_identifier) @import.alias
  (#match? @_container "^(vector|list|deque|forward_list|set|multiset|unordered_set|unordered_multiset|array|span|initializer_list|queue|priority_queue|stack)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: [
    (identifier) @import.alias
    (reference_declarator (identifier) @import.alias)
    (init_declarator declarator: [
      (identifier) @import.alias
      (reference_declarator (identifier) @import.alias)
    ])
  ]
  (#match? @_container "^(map|multimap|unordered_map|unordered_multimap)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(parameter_declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: [
    (identifier) @import.alias
    (reference_declarator (identifier) @import.alias)
  ]
  (#match? @_container "^(map|multimap|unordered_map|unordered_multimap)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(optional_parameter_declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: [
    (identifier) @import.alias
    (reference_declarator (identifier) @import.alias)
  ]
  (#match? @_container "^(map|multimap|unordered_map|unordered_multimap)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

(field_declaration
  type: [
    (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
    (qualified_identifier name: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)]))))
    (qualified_identifier
      scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
      name: (type_identifier) @_iterator)
    (qualified_identifier
      name: (qualified_identifier
        scope: (template_type name: (type_identifier) @_container arguments: (template_argument_list . (type_descriptor) . (type_descriptor type: [
        (type_identifier) @name
        (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)])))
        name: (type_identifier) @_iterator))
  ] @binding.elements
  declarator: (field_identifier) @import.alias
  (#match? @_container "^(map|multimap|unordered_map|unordered_multimap)$")
  (#match? @_iterator "^(const_)?(reverse_)?iterator$")) @reference.type

; ---------------------------------------------------------------------------
; Type references: base classes
; ---------------------------------------------------------------------------

(base_class_clause
  [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: [(type_identifier) @name (template_type name: (type_identifier) @name)])
    (qualified_identifier
      name: (qualified_identifier scope: (_) @receiver name: [(type_identifier) @name (template_type name: (type_identifier) @name)]))
  ] @reference.type)

; ---------------------------------------------------------------------------
; Calls
; ---------------------------------------------------------------------------

; `obj.m()`, `p->m()`, `this->m()`, `obj.template get<T>()`
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [
      (field_identifier) @name
      (template_method name: (field_identifier) @name)
      (dependent_name (template_method name: (field_identifier) @name))
      (destructor_name) @name
    ])) @reference.call

; `Base::m()` (super calls), `std::sort()`, `Circle::unit()`, `std::make_unique<T>()`;
; the receiver is the innermost qualifier.
(call_expression
  function: [
    (qualified_identifier scope: (_) @receiver name: [(identifier) @name (template_function name: (identifier) @name)])
    (qualified_identifier
      name: (qualified_identifier scope: (_) @receiver name: [(identifier) @name (template_function name: (identifier) @name)]))
    (qualified_identifier
      name: (qualified_identifier
        name: (qualified_identifier scope: (_) @receiver name: [(identifier) @name (template_function name: (identifier) @name)])))
  ]) @reference.call

; `f()`, `make<T>()`, `Circle(2.0)` (a temporary: the constructor); not the casts
(call_expression
  function: [(identifier) @name (template_function name: (identifier) @name)]
  (#not-any-of? @name "static_cast" "dynamic_cast" "const_cast" "reinterpret_cast")) @reference.call

; `(*fp)(x)`
(call_expression
  function: (parenthesized_expression
    [
      (identifier) @name
      (pointer_expression argument: (identifier) @name)
    ])) @reference.call

; Constructor calls: `new Circle(3.0)`, `Circle c(2.0);`, `Circle c{2.0};`, `Circle{2.0}`
(new_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (template_type name: (type_identifier) @name))
    (qualified_identifier
      name: (qualified_identifier scope: (_) @receiver name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ]))
  ]) @reference.call

(declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (template_type name: (type_identifier) @name))
    (qualified_identifier
      name: (qualified_identifier scope: (_) @receiver name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ]))
  ]
  declarator: (init_declarator
    value: [(argument_list) (initializer_list)])) @reference.call

; `Status s;`, `InternalKey smallest, largest;`: the default constructor the class declares,
; if any, runs (the extractor marks the call "declared").
(declaration
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (template_type name: (type_identifier) @name))
    (qualified_identifier
      name: (qualified_identifier scope: (_) @receiver name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ]))
  ]
  declarator: (identifier)) @reference.call

(compound_literal_expression
  type: [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (type_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: (template_type name: (type_identifier) @name))
    (qualified_identifier
      name: (qualified_identifier scope: (_) @receiver name: [
        (type_identifier) @name
        (template_type name: (type_identifier) @name)
      ]))
  ]) @reference.call

; Base and member initializers `Circle(double r) : Shape("circle"), r_(r)`
(field_initializer
  [
    (field_identifier) @name
    (template_method name: (field_identifier) @name)
    (qualified_identifier scope: (_) @receiver name: [(identifier) (type_identifier)] @name)
  ]) @reference.call

; ---------------------------------------------------------------------------
; Callbacks: functions passed by name
; ---------------------------------------------------------------------------

; `std::sort(b, e, by_area)`, `for_each(b, e, &print)`, `bind(&Circle::area, c)`,
; `sort(b, e, Circle::less)`
(argument_list
  (identifier) @name @reference.callback)

(argument_list
  (qualified_identifier
    scope: (_) @receiver
    name: (identifier) @name) @reference.callback)

(argument_list
  (pointer_expression
    operator: "&"
    argument: [
      (identifier) @name
      (qualified_identifier scope: (_) @receiver name: (identifier) @name)
    ]) @reference.callback)

; Function tables `{ area, name }`, `{ .area = circle_area }`
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
