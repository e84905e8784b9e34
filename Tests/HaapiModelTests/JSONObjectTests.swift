import HaapiModel
import Testing

@Suite("JSONObject lookups, small and large")
struct JSONObjectTests {
    @Test("members are found, replaced and removed whether the object is below or above the index threshold")
    func lookupsAcrossSizes() {
        var object = JSONObject()
        for count in 0..<20 {
            object["k\(count)"] = .number(JSONNumber(count))
            for present in 0...count {
                #expect(object["k\(present)"] == .number(JSONNumber(present)), "size \(count + 1), k\(present)")
            }
            #expect(object["missing"] == nil)
        }
        object["k3"] = "replaced"
        #expect(object["k3"] == "replaced" && object.count == 20 && object.keys[3] == "k3")
        for removed in 0..<18 {
            object["k\(removed)"] = nil
            #expect(!object.contains("k\(removed)"))
            for present in (removed + 1)..<20 {
                #expect(object.contains("k\(present)"), "after removing k\(removed), k\(present)")
            }
        }
        #expect(object.keys == ["k18", "k19"])
        object["k20"] = true
        #expect(object["k20"] == true && object["k19"] == .number(JSONNumber(19)))
    }
}
