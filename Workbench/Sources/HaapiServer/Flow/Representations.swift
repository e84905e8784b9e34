import Foundation
@_spi(Tooling) import HaapiModel

/// Builders for the representations the server sends, with the member names of the vendor's fixtures.
enum Representation {
    static func step(
        _ type: String, viewName: String, actions: [JSONValue] = [], links: [JSONValue] = [],
        messages: [JSONValue] = [],
        properties: JSONValue? = nil
    ) -> JSONValue {
        var object: JSONObject = ["type": .string(type), "metadata": ["viewName": .string(viewName)]]
        if !actions.isEmpty { object["actions"] = .array(actions) }
        if !links.isEmpty { object["links"] = .array(links) }
        if !messages.isEmpty { object["messages"] = .array(messages) }
        if let properties { object["properties"] = properties }
        return .object(object)
    }

    static func form(
        kind: String, title: String? = nil, href: String, method: String = "POST", fields: [JSONValue] = [],
        actionTitle: String? = nil, type: String? = nil, continueActions: [JSONValue] = [], properties: JSONValue? = nil
    ) -> JSONValue {
        var model: JSONObject = ["href": .string(href), "method": .string(method)]
        if method != "GET" || !fields.isEmpty { model["type"] = .string(type ?? FormActionModel.urlEncodedMediaType) }
        if let actionTitle { model["actionTitle"] = .string(actionTitle) }
        if !fields.isEmpty { model["fields"] = .array(fields) }
        if !continueActions.isEmpty { model["continueActions"] = .array(continueActions) }
        var action: JSONObject = ["template": "form", "kind": .string(kind)]
        if let title { action["title"] = .string(title) }
        if let properties { action["properties"] = properties }
        action["model"] = .object(model)
        return .object(action)
    }

    static func field(
        _ name: String, type: String, label: String? = nil, value: String? = nil, placeholder: String? = nil,
        extra: JSONObject = [:]
    ) -> JSONValue {
        var object: JSONObject = ["name": .string(name), "type": .string(type)]
        if let label { object["label"] = .string(label) }
        if let value { object["value"] = .string(value) }
        if let placeholder { object["placeholder"] = .string(placeholder) }
        for (key, member) in extra { object[key] = member }
        return .object(object)
    }

    static func link(_ href: String, rel: String, title: String? = nil) -> JSONValue {
        var object: JSONObject = ["href": .string(href), "rel": .string(rel)]
        if let title { object["title"] = .string(title) }
        return .object(object)
    }

    static func message(_ text: String, _ classes: [String] = ["info"]) -> JSONValue {
        ["text": .string(text), "classList": .array(classes.map(JSONValue.string))]
    }

    static func redirection(to href: String, method: String = "GET") -> JSONValue {
        step(
            "redirection-step", viewName: "/templates/redirect",
            actions: [form(kind: "redirect", href: href, method: method)])
    }

    static func problem(
        _ type: ProblemType, title: String, extra: JSONObject = [:], messages: [JSONValue] = []
    ) -> JSONValue {
        var object: JSONObject = ["type": .string(type.rawValue), "title": .string(title)]
        if !messages.isEmpty { object["messages"] = .array(messages) }
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    static func invalidInput(_ fields: [(name: String, reason: String, detail: String)]) -> JSONValue {
        problem(
            .invalidInputProblem, title: "Form errors",
            extra: [
                "invalidFields": .array(
                    fields.map {
                        ["name": .string($0.name), "reason": .string($0.reason), "detail": .string($0.detail)]
                    })
            ])
    }
}
