; Ahead of tree-sitter-ruby's tags query, which tags every constant as a reference: a
; constant assigned is defined there (Ruby allows that only outside methods).
(assignment
  left: (constant) @name) @definition.constant
