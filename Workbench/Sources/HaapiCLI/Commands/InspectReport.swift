@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// What `haapi inspect` prints about a decoded response. The JSON form is a contract that tests and
/// CI rely on (see the README): keep its member names stable.
public enum InspectReport {
    public static func json(for response: HaapiResponse) -> JSONValue {
        var report = JSONObject()
        switch response {
        case .representation(let step):
            report["representationType"] = .string(step.type.rawValue)
            report["step"] = .string(typeName(step))
            report["actions"] = .array(step.actions.map(action))
            report["links"] = .array(step.links.map(link))
            report["messages"] = .array(step.messages.map(message))
            if let polling = step as? PollingStep {
                report["pollingStatus"] = .string(polling.status.rawValue)
            }
        case .problem(let problem):
            report["representationType"] = .string(problem.type.rawValue)
            report["step"] = .string(typeName(problem))
            report["actions"] = []
            report["links"] = .array(problem.links.map(link))
            report["messages"] = .array(problem.messages.map(message))
            report["invalidFields"] = .array(((problem as? InvalidInputProblem)?.invalidFields ?? []).map(invalidField))
            if let title = problem.title { report["title"] = .string(title.description) }
        }
        return .object(report)
    }

    /// A readable multi-line summary for people.
    public static func text(for response: HaapiResponse) -> String {
        var lines: [String] = []
        switch response {
        case .representation(let step):
            lines.append("\(typeName(step)) (\(step.type.rawValue))")
            if let polling = step as? PollingStep {
                var status = "  status: \(polling.status.rawValue)"
                if let interval = polling.pollingProperties.interval { status += ", poll every \(interval) ms" }
                if let remaining = polling.pollingProperties.maxWaitRemainingTime { status += ", \(remaining) s left" }
                lines.append(status)
            }
            if let response = step as? OAuthAuthorizationResponseStep {
                let code = response.oauthAuthorizationResponseProperties.code.map(MaskedText.token) ?? "(none)"
                lines.append("  code: \(code)")
            }
            appendActions(step.actions, indent: "  ", to: &lines)
            appendCommon(links: step.links, messages: step.messages, to: &lines)
        case .problem(let problem):
            lines.append("\(typeName(problem)): \(problem.title?.description ?? problem.type.rawValue)")
            lines.append("  type: \(problem.type.rawValue)")
            if let invalid = problem as? InvalidInputProblem {
                for field in invalid.invalidFields {
                    lines.append(
                        "  invalid field \(field.name): \(field.detail?.description ?? field.reason ?? "invalid")")
                }
            }
            if let authorization = problem as? AuthorizationProblem {
                lines.append(
                    "  error: \(authorization.error)\(authorization.errorDescription.map { " — \($0)" } ?? "")")
            }
            appendCommon(links: problem.links, messages: problem.messages, to: &lines)
        }
        return lines.joined(separator: "\n")
    }

    private static func appendActions(_ actions: [any Action], indent: String, to lines: inout [String]) {
        for action in actions {
            var line = "\(indent)- \(action.template.rawValue)/\(action.kind.rawValue)"
            if let title = action.title { line += " \"\(title)\"" }
            switch action {
            case let form as FormAction:
                line += " → \(form.model.method) \(form.model.href)"
                lines.append(line)
                for field in form.model.fields {
                    lines.append(
                        "\(indent)    \(field.name) (\(field.type.rawValue))\(field.isRequired ? "" : " optional")")
                }
            case let selector as SelectorAction:
                lines.append(line)
                appendActions(selector.model.options, indent: indent + "    ", to: &lines)
            case let operation as ClientOperationAction:
                lines.append(line + " → operation \(operation.model.name.rawValue)")
            default:
                lines.append(line + " (unknown template, kept as raw JSON)")
            }
        }
    }

    private static func appendCommon(links: [Link], messages: [UserMessage], to lines: inout [String]) {
        for message in messages {
            lines.append("  message [\(message.classList.joined(separator: " "))]: \(message.text)")
        }
        for link in links {
            let target =
                link.isDataLink ? "inline \(link.mediaType ?? "data") (\(link.href.utf8.count) bytes)" : link.href
            lines.append("  link \(link.rel): \(target)")
        }
    }

    private static func typeName(_ value: Any) -> String { String(describing: type(of: value)) }

    private static func action(_ action: any Action) -> JSONValue {
        var object: JSONObject = ["template": .string(action.template.rawValue), "kind": .string(action.kind.rawValue)]
        if let title = action.title { object["title"] = .string(title.description) }
        switch action {
        case let form as FormAction:
            object["fields"] = .array(
                form.model.fields.map { ["name": .string($0.name), "type": .string($0.type.rawValue)] })
        case let selector as SelectorAction:
            object["options"] = .array(selector.model.options.map(Self.action))
        case let operation as ClientOperationAction:
            object["clientOperation"] = .string(operation.model.name.rawValue)
        default:
            break
        }
        return .object(object)
    }

    private static func link(_ link: Link) -> JSONValue {
        ["rel": .string(link.rel), "href": .string(link.href)]
    }

    private static func message(_ message: UserMessage) -> JSONValue {
        ["text": .string(message.text.description), "classList": .array(message.classList.map(JSONValue.string))]
    }

    private static func invalidField(_ field: InvalidInputProblem.InvalidField) -> JSONValue {
        var object: JSONObject = ["name": .string(field.name)]
        if let reason = field.reason { object["reason"] = .string(reason) }
        if let detail = field.detail { object["detail"] = .string(detail.description) }
        return .object(object)
    }
}
