import Foundation

/// Turns forms and links into requests, with no I/O: the same inputs always give the same request.
///
/// Values: a caller's value overrides the field's own `value`, except for hidden fields, which always
/// carry the server's value; context fields take the caller's value only. Names that are not fields of
/// the form are ignored, and fields left without a value are not sent. Checkboxes follow HTML: sent
/// (with their `value`, or `on`) only when checked; a read-only checkbox keeps the server's state.
public enum HaapiRequestBuilder {
    /// The request that submits `form` with `parameters` (the user's values) merged over the form's own values, its `href`
    /// resolved against `baseURL`.
    public static func request(
        submitting form: FormActionModel,
        parameters: [String: any Sendable] = [:],
        baseURL: URL
    ) throws -> HaapiRequest {
        let url = try resolve(form.href, against: baseURL)
        var request = HaapiRequest(method: form.method, url: url, headers: ["Accept": HaapiMediaType.representation])
        let values = try fieldValues(form, parameters)
        let carriesBody = form.method == "POST" || form.method == "PUT"

        if HaapiMediaType.essence(of: form.type) == FormActionModel.jsonMediaType {
            guard carriesBody else { throw HaapiRequestBuildingError.methodNotAllowedForJSON(method: form.method) }
            var object = JSONObject()
            for (name, value) in values { object[name] = try jsonValue(value, field: name) }
            request.headers["Content-Type"] = FormActionModel.jsonMediaType
            request.body = Data(JSONValue.object(object).serialized().utf8)
            return request
        }

        let pairs = try values.map { (name: $0.name, value: try text($0.value, field: $0.name)) }
        guard !pairs.isEmpty else { return request }
        let encoded = FormURLEncoding.encode(pairs)
        if carriesBody {
            request.headers["Content-Type"] = FormActionModel.urlEncodedMediaType
            request.body = Data(encoded.utf8)
        } else {
            request.url = try appendingQuery(encoded, to: url)
        }
        return request
    }

    /// The GET request that follows `link`, resolved against `baseURL`.
    public static func request(following link: Link, baseURL: URL) throws -> HaapiRequest {
        HaapiRequest(
            method: "GET", url: try resolve(link.href, against: baseURL),
            headers: ["Accept": HaapiMediaType.representation])
    }

    /// Resolves a relative `href` (`/authn/…`) against the server's base URL; absolute ones stay as they are.
    public static func resolve(_ href: String, against baseURL: URL) throws -> URL {
        guard !href.isEmpty, let url = URL(string: href, relativeTo: baseURL)?.absoluteURL, url.scheme != nil else {
            throw HaapiRequestBuildingError.invalidHref(href)
        }
        return url
    }

    private static func fieldValues(
        _ form: FormActionModel, _ parameters: [String: any Sendable]
    ) throws -> [(name: String, value: any Sendable)] {
        form.fields.compactMap { field in
            let supplied = parameters[field.name]
            let value: (any Sendable)?
            switch field {
            case is HiddenFormField:
                value = field.value
            case let checkbox as CheckboxFormField:
                value = checkboxValue(checkbox, supplied)
            case is ContextFormField:
                value = supplied
            default:
                value = supplied ?? field.value
            }
            guard let value else { return nil }
            return (field.name, value)
        }
    }

    private static func checkboxValue(_ checkbox: CheckboxFormField, _ supplied: (any Sendable)?) -> (any Sendable)? {
        let onValue = checkbox.value ?? "on"
        if checkbox.readonly || supplied == nil { return checkbox.checked ? onValue : nil }
        switch supplied {
        case let flag as Bool: return flag ? onValue : nil
        case let json as JSONValue where json.boolValue != nil: return json.boolValue == true ? onValue : nil
        default: return supplied
        }
    }

    private static func text(_ value: any Sendable, field: String) throws -> String {
        switch value {
        case let text as String: return text
        case let text as Substring: return String(text)
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Double: return JSONNumber(number)?.literal ?? String(number)
        case let number as JSONNumber: return number.literal
        case let json as JSONValue:
            switch json {
            case .string(let text): return text
            case .number(let number): return number.literal
            case .bool(let flag): return flag ? "true" : "false"
            default: throw HaapiRequestBuildingError.valueNotURLEncodable(field: field, valueType: json.typeName)
            }
        case let unsupported as FormValues.Unsupported:
            throw HaapiRequestBuildingError.valueNotURLEncodable(field: field, valueType: unsupported.typeName)
        default:
            throw HaapiRequestBuildingError.valueNotURLEncodable(
                field: field, valueType: String(describing: type(of: value)))
        }
    }

    private static func jsonValue(_ value: any Sendable, field: String) throws -> JSONValue {
        switch value {
        case let json as JSONValue: return json
        case let text as String: return .string(text)
        case let text as Substring: return .string(String(text))
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .number(JSONNumber(number))
        case let number as Double:
            guard let json = JSONNumber(number) else {
                throw HaapiRequestBuildingError.unsupportedValue(field: field, valueType: "non-finite Double")
            }
            return .number(json)
        case let object as [String: JSONValue]:
            return .object(JSONObject(object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        case let object as [String: String]:
            return .object(JSONObject(object.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        case let unsupported as FormValues.Unsupported:
            throw HaapiRequestBuildingError.unsupportedValue(field: field, valueType: unsupported.typeName)
        default:
            throw HaapiRequestBuildingError.unsupportedValue(
                field: field, valueType: String(describing: type(of: value)))
        }
    }

    private static func appendingQuery(_ query: String, to url: URL) throws -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw HaapiRequestBuildingError.invalidHref(url.absoluteString)
        }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        guard let result = components.url else { throw HaapiRequestBuildingError.invalidHref(url.absoluteString) }
        return result
    }
}
