/// The decoder's pieces one by one, for the seed's model factories (`HaapiModel.StepFactory` and its siblings in
/// HaapiSdk): each part of a representation read from its JSON exactly as `HaapiDecoder` reads it inside a
/// whole body.
@_spi(Tooling) public enum ModelFactoryDecoding {
    @_spi(Tooling) public static func action(_ value: JSONValue) throws -> any Action {
        try ActionDecoding.action(value, at: .root)
    }

    /// The `model` of an action of `template` (a form's, a selector's or a client operation's).
    @_spi(Tooling) public static func actionModel(
        _ value: JSONValue, template: ActionTemplate
    ) throws
        -> any RepresentationActionModel
    {
        let cursor = try ObjectCursor(value, at: .root)
        switch template {
        case .form: return try FormActionModel(cursor)
        case .selector: return try SelectorActionModel(cursor)
        case .clientOperation: return try ClientOperationDecoding.model(cursor)
        case .other(let name):
            throw HaapiDecodingError(path: .root, reason: .invalidValue("no model is known for the template \(name)"))
        }
    }

    @_spi(Tooling) public static func content(_ value: JSONValue) throws -> RepresentationContent {
        try RepresentationContent(try ObjectCursor(value, at: .root))
    }

    @_spi(Tooling) public static func formField(_ value: JSONValue) throws -> any FormField {
        try FormFieldDecoding.field(value, at: .root)
    }

    @_spi(Tooling) public static func problem(_ value: JSONValue) throws -> any ProblemRepresentation {
        try ProblemDecoding.problem(try ObjectCursor(value, at: .root))
    }

    /// The `properties` of a representation of `type`: typed for polling steps and authorization responses.
    @_spi(Tooling) public static func properties(
        _ value: JSONValue, of type: RepresentationType
    ) throws -> any Properties {
        let cursor = try ObjectCursor(value, at: .root)
        switch type {
        case .pollingStep: return try PollingProperties(cursor)
        case .oauthAuthorizationResponse: return try OAuthAuthorizationResponseProperties(cursor)
        default: return GenericProperties(rawJSON: value)
        }
    }
}
