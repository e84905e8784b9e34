#if canImport(UIKit) && !os(watchOS)
import UIKit

/// Opens other apps with `UIApplication.shared.open` (their schemes must be in the app's
/// `LSApplicationQueriesSchemes`, e.g. `bankid`).
struct UIApplicationOpener: ExternalAppOpener {
    func open(_ url: URL) async -> Bool {
        await Self.openOnMainActor(url)
    }

    @MainActor
    private static func openOnMainActor(_ url: URL) async -> Bool {
        guard UIApplication.shared.canOpenURL(url) else { return false }
        return await UIApplication.shared.open(url)
    }
}
#endif
