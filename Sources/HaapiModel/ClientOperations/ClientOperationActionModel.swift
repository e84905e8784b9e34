/// The model of a `client-operation` action: which operation, its arguments, and how to go on.
public protocol ClientOperationActionModel: RepresentationActionModel {
    /// Which operation the client performs (`external-browser-flow`, `bankid`, `webauthn-registration`, …).
    var name: ClientOperationName { get }
    /// The operation's arguments exactly as sent.
    var arguments: JSONValue? { get }
    /// How to proceed once the operation has run (usually one form).
    var continueActions: [any Action] { get }
    /// What to offer when the operation cannot run (e.g. fall back to a browser).
    var errorActions: [any Action] { get }
}

/// The members every client-operation model has.
public struct ClientOperationCommon: Sendable {
    /// Which operation to perform.
    public let name: ClientOperationName
    /// The operation's arguments as sent.
    public let arguments: JSONValue?
    /// What to do once the operation has succeeded.
    public let continueActions: [any Action]
    /// What to do when the operation fails or cannot run.
    public let errorActions: [any Action]
    /// The model as sent.
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        name = ClientOperationName(rawValue: try cursor.string("name"))
        arguments = cursor.value("arguments")
        continueActions = try ActionDecoding.actions("continueActions", in: cursor)
        errorActions = try ActionDecoding.actions("errorActions", in: cursor)
        rawJSON = cursor.raw
    }
}

/// Forwards the common members so each operation model only declares its own arguments.
public protocol CommonClientOperationActionModel: ClientOperationActionModel {
    /// The members every client-operation model has.
    var common: ClientOperationCommon { get }
}

extension CommonClientOperationActionModel {
    public var name: ClientOperationName { common.name }
    public var arguments: JSONValue? { common.arguments }
    public var continueActions: [any Action] { common.continueActions }
    public var errorActions: [any Action] { common.errorActions }
    public var rawJSON: JSONValue { common.rawJSON }
}

enum ClientOperationDecoding {
    static func model(_ cursor: ObjectCursor) throws -> any ClientOperationActionModel {
        let common = try ClientOperationCommon(cursor)
        // Arguments are optional for operations we do not know, required for the ones we do.
        func arguments() throws -> ObjectCursor { try cursor.object("arguments") }
        switch common.name {
        case .externalBrowserFlow: return try ExternalBrowserClientOperationActionModel(common, try arguments())
        case .bankID: return try BankIdClientOperationActionModel(common, try arguments())
        case .encapAutoActivation: return try EncapAutoActivationClientOperationActionModel(common, try arguments())
        case .webauthnRegistration: return try WebAuthnRegistrationClientOperationActionModel(common, try arguments())
        case .webauthnAuthentication:
            return try WebAuthnAuthenticationClientOperationActionModel(common, try arguments())
        case .other: return GenericClientOperationActionModel(common: common)
        }
    }
}

/// Open `href` in a browser; the browser comes back to the app with `_resume_nonce`.
public struct ExternalBrowserClientOperationActionModel: CommonClientOperationActionModel {
    public let common: ClientOperationCommon
    /// The address to open in the external browser; it carries the flow's resume nonce back to the app.
    public let href: String

    init(_ common: ClientOperationCommon, _ arguments: ObjectCursor) throws {
        self.common = common
        href = try arguments.string("href")
    }
}

/// Launch the BankID app.
public struct BankIdClientOperationActionModel: CommonClientOperationActionModel {
    public let common: ClientOperationCommon
    /// A ready-made launch URL.
    public let href: String?
    /// The token the BankID app is started with.
    public let autoStartToken: String?
    /// Where the BankID app returns to once the user has signed, when the server names it.
    public let redirect: String?

    init(_ common: ClientOperationCommon, _ arguments: ObjectCursor) throws {
        self.common = common
        href = try arguments.optionalString("href")
        autoStartToken = try arguments.optionalString("autoStartToken")
        redirect = try arguments.optionalString("redirect")
    }
}

/// Activate an Encap device automatically (deprecated by the vendor, still decoded).
public struct EncapAutoActivationClientOperationActionModel: CommonClientOperationActionModel {
    public let common: ClientOperationCommon
    /// The Encap activation address, when the server sends one.
    public let href: String?
    /// The Encap activation code, when the server sends one.
    public let activationCode: String?

    init(_ common: ClientOperationCommon, _ arguments: ObjectCursor) throws {
        self.common = common
        href = try arguments.optionalString("href")
        activationCode = try arguments.optionalString("activationCode")
    }
}

/// An operation this SDK does not know; its raw arguments are kept.
public struct GenericClientOperationActionModel: CommonClientOperationActionModel {
    public let common: ClientOperationCommon
}
