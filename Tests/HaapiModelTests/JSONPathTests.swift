import Foundation
import HaapiModel
import Testing

/// Where a decoding error points: an app that marks the offending part walks `components`; a log prints the
/// description.
@Suite("JSONPath: the steps to a place in a document")
struct JSONPathTests {
    @Test("built step by step: the components in order, printed as members and indices")
    func components() {
        let path = JSONPath.root.appending("actions").appending(1).appending("model").appending("fields").appending(0)
        let expected: [JSONPath.Component] = [
            .member("actions"), .index(1), .member("model"), .member("fields"), .index(0),
        ]
        #expect(path.components == expected)
        #expect(path.description == "actions[1].model.fields[0]")
        #expect(JSONPath.root.description == "(root)")
        #expect(JSONPath(components: [.index(2), .member("a")]).description == "[2].a")
    }

    @Test("a decoding error names the member that failed")
    func decodingErrorPath() throws {
        do {
            _ = try HaapiDecoder().decodeFormField(Data(#"{"type":"username","name":7}"#.utf8))
            Issue.record("a number was accepted as a field's name")
        } catch let error as HaapiDecodingError {
            #expect(error.path.components == [JSONPath.Component.member("name")])
        }
    }
}
