/// The `type` of a representation (a step of the flow).
public enum RepresentationType: OpenEnum {
    /// `authentication-step`: an authenticator wants input.
    case authenticationStep
    /// `redirection-step`: a redirection to follow.
    case redirectionStep
    /// `registration-step`: an account or device registration.
    case registrationStep
    /// `polling-step`: wait for something to finish elsewhere.
    case pollingStep
    /// `continue-same-step`: the same screen again, with a message.
    case continueSameStep
    /// `oauth-authorization-response`: the flow's end, with the code.
    case oauthAuthorizationResponse
    /// `consentor-step`: a consentor asks the user to agree.
    case consentorStep
    /// `user-consent-step`: the user grants or refuses scopes.
    case userConsentStep
    case other(value: String)

    public static let knownCases: [RepresentationType] = [
        .authenticationStep, .redirectionStep, .registrationStep, .pollingStep, .continueSameStep,
        .oauthAuthorizationResponse, .consentorStep, .userConsentStep,
    ]

    public var rawValue: String {
        switch self {
        case .authenticationStep: "authentication-step"
        case .redirectionStep: "redirection-step"
        case .registrationStep: "registration-step"
        case .pollingStep: "polling-step"
        case .continueSameStep: "continue-same-step"
        case .oauthAuthorizationResponse: "oauth-authorization-response"
        case .consentorStep: "consentor-step"
        case .userConsentStep: "user-consent-step"
        case .other(let value): value
        }
    }
}
