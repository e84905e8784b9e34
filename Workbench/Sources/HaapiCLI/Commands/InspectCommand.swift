import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiModel

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode a HAAPI response body and show the typed step or problem.",
        discussion: HelpExamples.discussion(
            """
            Reads FILE (or standard input for -). Exits 0 on success; on malformed input prints one line \
            naming where it went wrong to standard error and exits 65.
            """,
            "curl -s -H 'Accept: application/vnd.auth+json' \"http://localhost:8080/oauth/authorize?client_id=haapi-demo&response_type=code\" | haapi inspect -",
            "haapi inspect --json step.json")
    )

    @Flag(name: .long, help: "Print one JSON object (the stable contract documented in the README).")
    var json = false

    @Option(name: .long, help: "The response's Content-Type, when known (decides between step and problem).")
    var contentType: String?

    @Argument(help: "A file with the response body, or - for standard input.")
    var file: String

    func run() throws {
        let data = try StandardStreams.read(file, what: "the response file")
        let response: HaapiResponse
        do {
            response = try HaapiDecoder().decode(data, contentType: contentType)
        } catch {
            throw CLIFailure("\(file) is not a HAAPI response: \(error)", code: ExitCodes.dataError)
        }
        print(json ? InspectReport.json(for: response).serialized() : InspectReport.text(for: response))
    }
}
