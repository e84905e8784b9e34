@_spi(Tooling) import HaapiModel

extension HaapiError {
    /// The id of the rule the server says the request broke, when its `error_description` ends with one in
    /// brackets (`"htu does not match the request URL [dpop.htu-mismatch]"`, as the swift-haapi dev server
    /// writes them); looked for in the error's cause too. Nil for servers that name no rule.
    public var serverRule: String? {
        switch self {
        case .serverError(_, let description, _): ServerRuleID.parse(description)
        default: (cause as? HaapiError)?.serverRule
        }
    }
}
