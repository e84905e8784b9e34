/// The `type` of a representation (a step of the flow).
public enum RepresentationType: OpenEnum {
    case authenticationStep
    case redirectionStep
    case registrationStep
    case pollingStep
    case continueSameStep
    case oauthAuthorizationResponse
    case consentorStep
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
