; Supplement to tree-sitter-javascript's tags query (and TypeScript's, after its own): the
; bodies that hold no item. A function without a name (a factory wrapping a whole library, a
; callback), a constructor or a method with a computed name (`[Symbol.iterator]() {`), which
; the vendored query does not tag, and an object literal (a visitor table, a prototype of
; getters, `mergeExports(fn, { get Dependency() … })`) are scopes: what they hold is nested,
; as in a named function's body. Each is tagged by a short token of its own as `scope`, and
; never listed.

; A module's exports written as one object (`module.exports = {`, `exports.x = {`,
; `export default {`) is no scope: its members are the module's API, as `exports.name =
; function` is. Ignored here, ahead of the scope pattern below, so that it does not tag the
; same brace.
(assignment_expression
  left: (member_expression) @local.reference
  right: (object
    "{" @ignore)
  (#match? @local.reference "^(module\\.)?exports(\\.[A-Za-z_$][A-Za-z0-9_$]*)?$"))

(export_statement
  value: (object
    "{" @ignore))

(object
  "{" @name) @definition.scope

(function_expression
  !name
  "function" @name) @definition.scope

(arrow_function
  "=>" @name) @definition.scope

(method_definition
  name: (computed_property_name) @name) @definition.scope

((method_definition
  name: (property_identifier) @name) @definition.scope
  (#eq? @name "constructor"))
