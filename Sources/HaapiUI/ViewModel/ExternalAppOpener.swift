import Foundation

/// Opens another app through its URL (BankID's `bankid:///?autostarttoken=…`, an Encap activation link).
/// Inject one to control how (or to test); on iOS the default is `UIApplication.shared.open`.
public protocol ExternalAppOpener: Sendable {
    /// Whether the app was opened.
    func open(_ url: URL) async -> Bool
}

/// The platform's opener: `UIApplication` on iOS (in `Apple/`), none elsewhere.
func defaultExternalAppOpener() -> (any ExternalAppOpener)? {
    #if canImport(UIKit) && !os(watchOS)
    return UIApplicationOpener()
    #else
    return nil
    #endif
}

/// Where the client operations that open another app send the user.
enum ExternalAppLaunch {
    /// BankID: the server's ready-made link, else one built from the auto-start token (with the redirect the
    /// server gave, or `null`, which tells BankID to return to the app that opened it). Encap: its link.
    static func url(for operation: any ClientOperationStep) -> URL? {
        switch operation {
        case let bankID as BankIdClientOperationStep:
            return bankIDURL(bankID.actionModel)
        case let encap as EncapClientOperationStep:
            return encap.actionModel.href.flatMap(URL.init(string:))
        default:
            return nil
        }
    }

    static func bankIDURL(_ model: BankIdClientOperationActionModel) -> URL? {
        if let href = model.href, let url = URL(string: href) { return url }
        guard let token = model.autoStartToken else { return nil }
        var components = URLComponents()
        components.scheme = "bankid"
        components.host = ""
        components.path = "/"
        components.queryItems = [
            URLQueryItem(name: "autostarttoken", value: token),
            URLQueryItem(name: "redirect", value: model.redirect ?? "null"),
        ]
        return components.url
    }
}
