/// The `model` of an action, whatever its template: a form's (`FormActionModel`), a selector's
/// (`SelectorActionModel`) or a client operation's (`ClientOperationActionModel`). Code that only needs the
/// model as sent (to log it, or to hand it to a custom view) takes this.
public protocol RepresentationActionModel: RawJSONRepresentable {}

extension FormActionModel: RepresentationActionModel {}
extension SelectorActionModel: RepresentationActionModel {}

extension FormAction {
    /// The model, as the template-independent type.
    public var actionModel: any RepresentationActionModel { model }
}

extension SelectorAction {
    /// The model, as the template-independent type.
    public var actionModel: any RepresentationActionModel { model }
}

extension ClientOperationAction {
    /// The model, as the template-independent type.
    public var actionModel: any RepresentationActionModel { model }
}
