; TSX: appended to ../typescript/tags.scm (see grammars/src/lib.rs). JSX node types exist
; only in the TSX grammar, so these patterns cannot live in the shared TypeScript query.

; <Component …/> and <ns.Component …/> (lower-case tags are HTML elements)
(jsx_opening_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_self_closing_element
  name: (identifier) @name
  (#match? @name "^[A-Z]")) @reference.call

(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; <button onClick={handleClick}> and onClick={this.handleClick}
(jsx_attribute
  (jsx_expression
    (identifier) @name @reference.callback))

(jsx_attribute
  (jsx_expression
    (member_expression
      object: (_) @receiver
      property: [
        (property_identifier)
        (private_property_identifier)
      ] @name @reference.callback)))
