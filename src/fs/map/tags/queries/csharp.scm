; The whole of C#'s tags query: the grammar crate's own does not compile under
; tree-sitter-tags (it captures `@module`, which tags do not know), and tags neither
; structs, records, enums, properties nor constructors.

; Namespaces, by their last segment (`Shop.Billing` is `Billing`), block or file-scoped.
(namespace_declaration
  name: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ]) @definition.module

(file_scoped_namespace_declaration
  name: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ]) @definition.module

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type

; Members. Fields only when constant: the rest are a type's private state.
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(event_declaration name: (identifier) @name) @definition.property
(event_field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name))) @definition.property
(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator name: (identifier) @name))) @definition.constant

; Calls: `f()`, `x.f()`, `f<T>()`, `x.f<T>()`.
(invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
    (member_access_expression
      name: [
        (identifier) @name
        (generic_name (identifier) @name)
      ])
  ]) @reference.call

; Type uses. The grammar has no node of its own for a type's name, so these name the places
; a type stands: `type:` and `returns:` fields, base lists, type arguments and attributes.
(_
  type: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
    (generic_name (identifier) @name)
  ]) @reference.type

(_
  returns: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
    (generic_name (identifier) @name)
  ]) @reference.type

(base_list
  [
    (identifier) @name
    (qualified_name name: (identifier) @name)
    (generic_name (identifier) @name)
  ]) @reference.type

(type_argument_list
  [
    (identifier) @name
    (qualified_name name: (identifier) @name)
    (generic_name (identifier) @name)
  ]) @reference.type

(attribute
  name: [
    (identifier) @name
    (qualified_name name: (identifier) @name)
  ]) @reference.type
