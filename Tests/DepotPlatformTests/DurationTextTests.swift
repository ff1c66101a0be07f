import DepotPlatform
import Testing

@Suite("Duration.text: the one way a duration is written in a message")
struct DurationTextTests {
    @Test(
        "milliseconds under a second, else seconds without trailing zeros",
        arguments: [
            (Duration.milliseconds(500), "500 ms"), (.milliseconds(1), "1 ms"), (.zero, "0 s"), (.seconds(2), "2 s"),
            (.milliseconds(2500), "2.5 s"), (.milliseconds(1250), "1.25 s"), (.milliseconds(60_001), "60.001 s"),
            (.seconds(3600), "3600 s"), (.microseconds(1500), "1 ms"),
        ])
    func text(_ duration: Duration, _ expected: String) {
        #expect(duration.text == expected)
    }

    @Test("secondsValue keeps the fraction")
    func secondsValue() {
        #expect(Duration.milliseconds(1500).secondsValue == 1.5)
    }
}
