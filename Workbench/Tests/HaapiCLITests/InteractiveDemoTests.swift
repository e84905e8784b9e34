import Foundation
import Testing

/// `haapi demo` as a person uses it, on a pseudo-terminal.
@Suite(
    "haapi demo on a terminal", .enabled(if: PseudoTerminal.isAvailable, "needs util-linux script and a built haapi"),
    .timeLimit(.minutes(2)))
struct InteractiveDemoTests {
    /// `haapi demo` with "approve on another device" chosen for demouser: the terminal is polling.
    static func demoWaitingForApproval() async throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("3\n")
        try await terminal.waitFor("Username: ")
        terminal.type("demouser\n")
        return terminal
    }

    @Test("password login: numbered choice, hidden password, tokens masked, claims, refresh, revoke, exit 0")
    func passwordLogin() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        #expect(terminal.screen.contains("1) Username and password"))
        terminal.type("1\n")
        try await terminal.waitFor("Username: ")
        terminal.type("demouser\n")
        try await terminal.waitFor("Password: ")
        terminal.type("Password1\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(screen.contains("[exit 0]"), "\(screen.suffix(1500))")
        #expect(!screen.contains("Password1\r\n") && !screen.contains("Password: Password1"))  // not echoed
        #expect(screen.contains("sub: demouser"))
        #expect(screen.contains("masked; --show-tokens to print"))
        #expect(screen.contains("Refreshed") && screen.contains("Revoked"))
    }

    @Test(
        "the configured one-time code: a wrong code is refused on its field with the configured words, six digits sign in"
    )
    func oneTimeCode() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        #expect(terminal.screen.contains("6) One-time code"))
        terminal.type("6\n")
        try await terminal.waitFor("Code: ")
        terminal.type("12ab\n")
        try await terminal.waitFor("The code is six digits")
        terminal.type("123456\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(screen.contains("[exit 0]") && screen.contains("sub: demouser"), "\(screen.suffix(1500))")
    }

    @Test("the configured BankID: the launch link is printed, the polling step turns done by itself, signed in")
    func bankID() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        #expect(terminal.screen.contains("7) BankID"))
        terminal.type("7\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(screen.contains("bankid:///?autostarttoken="), "\(screen.suffix(1500))")
        #expect(screen.contains("Waiting for BankID") && screen.contains("[exit 0]"), "\(screen.suffix(1500))")
    }

    @Test("Ctrl-C at the hidden password prompt: echo is back on, the line is ended, exit 130")
    func ctrlCAtPassword() async throws {
        // After haapi exits, the shell reports whether the terminal echoes: "echo" or "-echo".
        let terminal = try PseudoTerminal(
            ["demo"], after: "echo \"[tty $(stty -a | tr ' ;' '\\n\\n' | grep -x -- '-\\?echo')]\"")
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("1\n")
        try await terminal.waitFor("Username: ")
        terminal.type("demouser\n")
        try await terminal.waitFor("Password: ")
        terminal.type("\u{3}")
        try await terminal.waitFor("\\[tty (-?echo)\\]")
        let screen = terminal.screen
        #expect(screen.contains("[exit 130]"), "\(screen.suffix(800))")
        #expect(screen.contains("[tty echo]"), "echo was left off: \(screen.suffix(800))")
        #expect(
            screen.contains("Password: \r\n") || screen.contains("Password: \n"),
            "the prompt's line is ended: \(screen.suffix(400))")
    }

    @Test("a step's links are choices: ':3' at the username prompt follows 'Create account'")
    func linksAreChoices() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("1\n")
        try await terminal.waitFor("Username: ")
        #expect(
            terminal.screen.contains(":3 Create account") && !terminal.screen.contains("(http://"),
            "\(terminal.screen.suffix(600))")
        terminal.type(":3\n")
        try await terminal.waitFor("→ Create account")
        try await terminal.waitFor("Username: ", occurrences: 2)
        terminal.type("\u{3}")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        #expect(terminal.screen.contains("[exit 130]"), "\(terminal.screen.suffix(600))")
    }

    @Test("e-mail code: the demo shows the inbox; a wrong code is reported and the right one signs in")
    func emailCode() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("2\n")
        try await terminal.waitFor("Username or e-mail: ")
        terminal.type("demouser\n")
        let code = try await terminal.waitFor("your code is (\\d{6})")
        try await terminal.waitFor("Code: |OTP: |otp: |code: ")
        terminal.type((code == "000000" ? "111111" : "000000") + "\n")
        try await terminal.waitFor("✗")
        terminal.type(code + "\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        #expect(terminal.screen.contains("[exit 0]"), "\(terminal.screen.suffix(1500))")
    }

    @Test("approval by polling: Ctrl-C while waiting sends the cancel action and ends cleanly with 130")
    func pollingCtrlC() async throws {
        let terminal = try await Self.demoWaitingForApproval()
        try await terminal.waitFor("s left \\(Ctrl-C cancels\\)")
        terminal.type("\u{3}")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(screen.contains("Cancelling…") && screen.contains("Sign-in cancelled."), "\(screen.suffix(1500))")
        #expect(screen.contains("[exit 130]"))
    }

    @Test("on a 40-column terminal the polling line is redrawn in place, never wider than the terminal")
    func narrowPolling() async throws {
        let terminal = try PseudoTerminal(["demo"], before: "stty cols 40; ")
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("3\n")
        try await terminal.waitFor("Username: ")
        terminal.type("demouser\n")
        try await terminal.waitFor("s left")
        try await Task.sleep(nanoseconds: 1_500_000_000)  // several redraws
        terminal.type("\u{3}")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        // Every redraw starts with a carriage return; what follows it up to the next one must fit in 39 columns.
        let redraws = terminal.screen.components(separatedBy: "\r").filter { $0.contains("Waiting") }
        #expect(redraws.count >= 3, "\(redraws)")
        for redraw in redraws {
            // The terminal itself echoes the typed Ctrl-C as "^C" after the last redraw.
            let visible = redraw.components(separatedBy: "\n")[0].replacingOccurrences(of: "^C", with: "")
            #expect(visible.count <= 39, "\(visible.count) columns: \(visible)")
        }
    }

    @Test("approval by polling: the demo offers to approve, Enter approves, the flow finishes by itself")
    func pollingApproved() async throws {
        let terminal = try await Self.demoWaitingForApproval()
        try await terminal.waitFor("Press Enter to approve")
        terminal.type("\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(
            screen.contains("Approved on the other device") && screen.contains("[exit 0]"), "\(screen.suffix(1500))")
    }

    @Test("external browser: the URL is printed; Enter lets the demo sign in through the page")
    func externalBrowser() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("4\n")
        try await terminal.waitFor("Paste the address")
        #expect(terminal.screen.contains("http://127.0.0.1:"))
        terminal.type("\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        #expect(terminal.screen.contains("[exit 0]"), "\(terminal.screen.suffix(1500))")
    }

    @Test("haapi login is interactive on a terminal: against haapi serve, to a token summary")
    func interactiveLogin() async throws {
        let (server, base) = try await LoginAndTokenCommandTests.startServer()
        defer { server.terminate() }
        let terminal = try PseudoTerminal(["login", "--server", base, "--client-id", "haapi-demo"])
        try await terminal.waitFor("Choose 1–\\d")
        terminal.type("password\n")
        try await terminal.waitFor("Username: ")
        terminal.type("demouser\n")
        try await terminal.waitFor("Password: ")
        terminal.type("Password1\n")
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(
            screen.contains("[exit 0]") && screen.contains("token_type: DPoP") && screen.contains("masked"),
            "\(screen.suffix(1500))")
    }

    @Test(
        "passkeys end to end: the menu says what the entry does, a passkey is created after the password, then signs in alone"
    )
    func passkeyRegistration() async throws {
        let terminal = try PseudoTerminal(["demo"])
        try await terminal.waitFor("Choose 1–\\d")
        #expect(terminal.screen.contains("5) Passkey (sign in, or create one)"))
        terminal.type("5\n")
        // Both ways are in the menu; signing in is not hidden behind a special input.
        try await terminal.waitFor("2\\) Create a passkey")
        #expect(terminal.screen.contains("1) Sign in with a passkey"))
        terminal.type("2\n")
        try await terminal.waitFor("Username: ")
        terminal.type("demouser\n")
        try await terminal.waitFor("Password: ")
        terminal.type("Password1\n")
        try await terminal.waitFor("Sign in again with it, no password\\? \\[Y/n\\]")
        #expect(terminal.screen.contains("Creating a passkey"))
        terminal.type("\n")
        // Yes goes straight to the passkey sign-in: no second authenticator menu, no second passkey menu.
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen
        #expect(
            screen.contains("Signing with your passkey") && screen.contains("✓ Signed in with your passkey.")
                && screen.contains("[exit 0]") && screen.components(separatedBy: "Choose 1–8: ").count == 2,
            "\(screen.suffix(1500))")
    }
}
