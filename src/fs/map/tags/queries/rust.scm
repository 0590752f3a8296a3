; Supplement to tree-sitter-rust's tags query: path calls (`Type::new()`) and type uses.

(call_expression
  function: (scoped_identifier
    name: (identifier) @name)) @reference.call

((type_identifier) @name) @reference.type

; Constants and statics: the grammar's own query defines neither, so a table of them (a
; file of `const` items, say) would yield nothing.
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant

; A trait's method declarations, which have no body.
(function_signature_item name: (identifier) @name) @definition.function

; An impl block, only to tell whose members its methods are (the name is the keyword, which no
; other pattern tags; the extractor keeps no reference for it).
(impl_item "impl" @name) @reference.impl
