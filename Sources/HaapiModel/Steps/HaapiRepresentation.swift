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
    /// The step's type.
    public let type: RepresentationType
    /// The step's actions, in order.
    public let actions: [any Action]
    /// The step's links.
    public let links: [Link]
    /// The step's messages.
    public let messages: [UserMessage]
    /// The step's metadata.
    public let metadata: Metadata?
    /// The step's `properties` as sent.
    public let rawProperties: JSONValue?
    /// The step as sent.
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
