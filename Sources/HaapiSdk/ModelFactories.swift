import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// The seed's model factories: each builds a typed model from a JSON dictionary exactly as the decoder does
/// inside a whole body (same checks, same errors: `HaapiDecodingError`). An app's unit tests use them to make
/// the steps, problems and token responses its own code handles.
///
/// The enum shares its name with the module that defines the models. In a file that imports `HaapiSdk` (or
/// `HaapiUI`), `HaapiModel.StepFactory` names this enum's member, as in the seed's documentation; the models
/// themselves are written unqualified (`JSONValue`, not `HaapiModel.JSONValue`). docs/SDK.md shows the import.
public enum HaapiModel {
    /// The JSON value of a Foundation dictionary, or a decoding error naming what has no JSON form.
    static func json(_ dictionary: [String: Any]) throws -> JSONValue {
        guard let value = JSONValue(foundationValue: dictionary) else {
            throw HaapiDecodingError(path: .root, reason: .invalidValue("a value in the dictionary has no JSON form"))
        }
        return value
    }

    /// Steps (`HaapiRepresentation`) from a representation's JSON.
    public enum StepFactory {
        /// The step `dictionary` describes; throws for a problem or a malformed step.
        public static func make(from dictionary: [String: Any]) throws -> any HaapiRepresentation {
            try make(from: try json(dictionary))
        }

        /// The step `json` describes.
        public static func make(from json: JSONValue) throws -> any HaapiRepresentation {
            guard case .representation(let step) = try HaapiDecoder().decode(json: json, contentType: nil) else {
                throw HaapiDecodingError(path: .root, reason: .invalidValue("a problem, not a step"))
            }
            return step
        }
    }

    /// Problems (`ProblemRepresentation`) from a problem's JSON.
    public enum ProblemFactory {
        /// The problem `dictionary` describes (`invalid-input`, `incorrect-credentials`, …).
        public static func make(from dictionary: [String: Any]) throws -> any ProblemRepresentation {
            try ModelFactoryDecoding.problem(try json(dictionary))
        }
    }

    /// Actions (`FormAction`, `SelectorAction`, `ClientOperationAction`, …) from an action's JSON.
    public enum ActionFactory {
        /// The action `dictionary` describes, typed by its `template`.
        public static func make(from dictionary: [String: Any]) throws -> any Action {
            try ModelFactoryDecoding.action(try json(dictionary))
        }
    }

    /// Action models from the `model` member of an action.
    public enum ActionModelFactory {
        /// The model of an action of `template` (a form's, a selector's or a client operation's).
        public static func make(
            from dictionary: [String: Any], template: ActionTemplate
        ) throws
            -> any RepresentationActionModel
        {
            try ModelFactoryDecoding.actionModel(try json(dictionary), template: template)
        }
    }

    /// The members every representation has (type, actions, links, messages, metadata, properties).
    public enum ContentFactory {
        /// The content `dictionary` describes, before it is classified into a step type.
        public static func make(from dictionary: [String: Any]) throws -> RepresentationContent {
            try ModelFactoryDecoding.content(try json(dictionary))
        }
    }

    /// Form fields from a field's JSON.
    public enum FormFieldFactory {
        /// The field `dictionary` describes, typed by its `type` (`TextFormField`, `PasswordFormField`, …).
        public static func make(from dictionary: [String: Any]) throws -> any FormField {
            try ModelFactoryDecoding.formField(try json(dictionary))
        }
    }

    /// A representation's `properties`, typed by the representation's type.
    public enum PropertiesFactory {
        /// `PollingProperties` for a polling step, `OAuthAuthorizationResponseProperties` for an authorization
        /// response, `GenericProperties` otherwise.
        public static func make(from dictionary: [String: Any], type: RepresentationType) throws -> any Properties {
            try ModelFactoryDecoding.properties(try json(dictionary), of: type)
        }
    }

    /// Token-endpoint answers from their JSON, as `OAuthTokenManager` reads them.
    public enum TokenResponseFactory {
        /// Tokens when `dictionary` has an `access_token`, an OAuth error when it has an `error`, otherwise
        /// `.error` with what is wrong.
        public static func make(from dictionary: [String: Any]) -> TokenResponse {
            guard let object = JSONValue(foundationValue: dictionary)?.objectValue else {
                return .error(HaapiError.communication(message: "the token response is not a JSON object", cause: nil))
            }
            if let error = ErrorTokenResponse(object) { return .errorToken(error) }
            do throws(HaapiError) {
                return .successfulToken(try SuccessfulTokenResponse(object))
            } catch {
                return .error(error)
            }
        }
    }
}
