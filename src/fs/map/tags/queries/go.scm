; Supplement to tree-sitter-go's tags query, which defines only functions, methods and types:
; package-level constants and variables, so a file of them yields their names
; (`StatusUnauthorized` in a table of `const`s). Type aliases are in go-overrides.scm.

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name) @definition.variable))

; A `var (` group: the grammar holds its specs in a list.
(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name) @definition.variable)))
