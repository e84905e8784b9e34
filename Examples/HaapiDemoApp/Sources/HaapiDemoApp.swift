import HaapiUI
import SwiftUI

/// A SwiftUI app that signs in against `haapi serve` on the Mac running the simulator:
///
///     swift run --package-path Workbench haapi serve --port 8080      # in the repository
///
/// then run this app (the workflow in .github/workflows/apple.yml builds it; nothing on Linux can).
@main
struct HaapiDemoApp: App {
    var body: some Scene {
        WindowGroup {
            ContentView()
                .onOpenURL { url in _ = HaapiDeepLinkManager.shared.handle(url: url) }
        }
    }
}
