import Testing
import TallyMoney

@Suite struct RationalTests {
    @Test func staysReducedWithAPositiveDenominator() {
        let half = Rational(3, -6)
        #expect(half.numerator == -1 && half.denominator == 2)
        #expect(Rational(0, 7) == Rational(0))
        #expect(Rational(10, 4) == Rational(5, 2))
    }

    @Test func arithmeticIsExact() {
        #expect(Rational(1, 3) + Rational(1, 6) == Rational(1, 2))
        #expect(Rational(2, 3) * Rational(9, 4) == Rational(3, 2))
        #expect(Rational(1) / (Rational(1) + Rational(88_750, 1_000_000)) == Rational(1_000_000, 1_088_750))
        #expect(Percent(whole: 18).of(8400) == Rational(1512))
    }

    @Test func comparesWithoutOverflow() {
        let huge = Int128.max / 3
        #expect(Rational(huge, huge - 1) < Rational(huge - 1, huge - 2))
        #expect(Rational(1, 3) < Rational(1, 2))
        #expect(Rational(-1, 2) < Rational(0))
    }

    @Test func percentsPrintShortest() {
        #expect(Percent(whole: 18).description == "18")
        #expect(Percent(tenThousandths: 88_750).description == "8.875")
        #expect(Percent(whole: 100).description == "100")
        #expect(Percent(tenThousandths: 0).description == "0")
    }
}

@Suite struct RoundingTests {
    @Test func halfUpGoesToTheNearestAndHalvesUp() {
        #expect(Rational(1249, 100).rounded(.halfUp) == 12)
        #expect(Rational(125, 10).rounded(.halfUp) == 13)
        #expect(Rational(1251, 100).rounded(.halfUp) == 13)
        #expect(Rational(-5, 10).rounded(.halfUp) == 0)
        #expect(Rational(12).rounded(.halfUp) == 12)
    }

    @Test func upAndDownAreCeilingAndFloor() {
        #expect(Rational(1201, 100).rounded(.up) == 13)
        #expect(Rational(1299, 100).rounded(.down) == 12)
        #expect(Rational(12).rounded(.up) == 12)
        #expect(Rational(12).rounded(.down) == 12)
        #expect(Rational(-1, 2).rounded(.down) == -1)
        #expect(Rational(-1, 2).rounded(.up) == 0)
    }

    @Test func roundsToAnIncrement() {
        // 15.12 to 5 cents and to a whole dollar (in cents).
        #expect(Rational(1512).rounded(.up, toMultipleOf: 5) == 1515)
        #expect(Rational(1512).rounded(.down, toMultipleOf: 5) == 1510)
        #expect(Rational(1512).rounded(.halfUp, toMultipleOf: 5) == 1510)
        #expect(Rational(1512).rounded(.up, toMultipleOf: 100) == 1600)
        #expect(Rational(1512).rounded(.down, toMultipleOf: 100) == 1500)
        #expect(Rational(1550).rounded(.halfUp, toMultipleOf: 100) == 1600)
        #expect(Rational(1500).rounded(.up, toMultipleOf: 100) == 1500)
        #expect(Rational(30251, 2).rounded(.up, toMultipleOf: 5) == 15130)
    }
}
