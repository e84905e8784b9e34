/// One step of a HAAPI flow, as returned with `application/vnd.auth+json`.
///
/// Switch on the concrete type to render it: `RedirectionStep`, `AuthenticatorSelectorStep`,
/// `InteractiveFormStep`, `PollingStep`, `ContinueSameStep`, `UserConsentStep`,
/// `OAuthAuthorizationResponseStep`, the `ClientOperationStep`s, or `GenericRepresentationStep`.
public protocol HaapiRepresentation: RawJSONRepresentable {
    /// The members every step has: type, actions, links, messages and metadata.
    var content: RepresentationContent { get }
    /// The typed `properties` when the step has a model for them, else `GenericProperties`.
    var properties: (any Properties)? { get }
}

extension HaapiRepresentation {
    /// What kind of step this is, from the representation's `type`.
    public var type: RepresentationType { content.type }
    /// What the user or the client can do next, in the server's order.
    public var actions: [any Action] { content.actions }
    /// Links the step offers besides its actions.
    public var links: [Link] { content.links }
    /// Messages to show on the step.
    public var messages: [UserMessage] { content.messages }
    /// The server's name for the screen, when it sends one.
    public var metadata: Metadata? { content.metadata }
    public var rawJSON: JSONValue { content.rawJSON }
    public var properties: (any Properties)? { content.rawProperties.map(GenericProperties.init(rawJSON:)) }
}

/// The members every representation has, decoded once before the step is classified.
public struct RepresentationContent: Sendable {
    public let type: RepresentationType
    public let actions: [any Action]
    public let links: [Link]
    public let messages: [UserMessage]
    public let metadata: Metadata?
    public let rawProperties: JSONValue?
    public let rawJSON: JSONValue
    let path: JSONPath

    init(_ cursor: ObjectCursor) throws {
        type = RepresentationType(rawValue: try cursor.string("type"))
        actions = try ActionDecoding.actions("actions", in: cursor)
        links = try cursor.objects("links").map(Link.init)
        messages = try cursor.objects("messages").map(UserMessage.init)
        metadata = try cursor.optionalObject("metadata").map(Metadata.init)
        rawProperties = cursor.value("properties")
        rawJSON = cursor.raw
        path = cursor.path
    }

    var formActions: [FormAction] { actions.compactMap { $0 as? FormAction } }

    func propertiesCursor() throws -> ObjectCursor {
        guard let rawProperties else {
            throw HaapiDecodingError(path: path.appending("properties"), reason: .missingMember)
        }
        return try ObjectCursor(rawProperties, at: path.appending("properties"))
    }
}
