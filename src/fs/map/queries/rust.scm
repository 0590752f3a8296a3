; Supplement to tree-sitter-rust's tags query: path calls (`Type::new()`) and type uses.

(call_expression
  function: (scoped_identifier
    name: (identifier) @name)) @reference.call

((type_identifier) @name) @reference.type
