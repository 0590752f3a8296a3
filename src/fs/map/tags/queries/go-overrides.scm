; Put ahead of tree-sitter-go's tags query, which tags every type identifier as a reference:
; a type alias (`type Header = map[string]string`) defines its name.

(type_alias name: (type_identifier) @name) @definition.type
