"""The engine: a deliberately long module so that it needs an outline."""

from app.util import clamp


class Engine:
    """Runs steps."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def step_0(self, value: int) -> int:
        """Step 0: add 0 and clamp."""
        total = value + 0
        return clamp(total, 0, self.limit)

    def step_1(self, value: int) -> int:
        """Step 1: add 1 and clamp."""
        total = value + 1
        return clamp(total, 0, self.limit)

    def step_2(self, value: int) -> int:
        """Step 2: add 2 and clamp."""
        total = value + 2
        return clamp(total, 0, self.limit)

    def step_3(self, value: int) -> int:
        """Step 3: add 3 and clamp."""
        total = value + 3
        return clamp(total, 0, self.limit)

    def step_4(self, value: int) -> int:
        """Step 4: add 4 and clamp."""
        total = value + 4
        return clamp(total, 0, self.limit)

    def step_5(self, value: int) -> int:
        """Step 5: add 5 and clamp."""
        total = value + 5
        return clamp(total, 0, self.limit)

    def step_6(self, value: int) -> int:
        """Step 6: add 6 and clamp."""
        total = value + 6
        return clamp(total, 0, self.limit)

    def step_7(self, value: int) -> int:
        """Step 7: add 7 and clamp."""
        total = value + 7
        return clamp(total, 0, self.limit)

    def step_8(self, value: int) -> int:
        """Step 8: add 8 and clamp."""
        total = value + 8
        return clamp(total, 0, self.limit)

    def step_9(self, value: int) -> int:
        """Step 9: add 9 and clamp."""
        total = value + 9
        return clamp(total, 0, self.limit)

    def step_10(self, value: int) -> int:
        """Step 10: add 10 and clamp."""
        total = value + 10
        return clamp(total, 0, self.limit)

    def step_11(self, value: int) -> int:
        """Step 11: add 11 and clamp."""
        total = value + 11
        return clamp(total, 0, self.limit)

    def step_12(self, value: int) -> int:
        """Step 12: add 12 and clamp."""
        total = value + 12
        return clamp(total, 0, self.limit)

    def step_13(self, value: int) -> int:
        """Step 13: add 13 and clamp."""
        total = value + 13
        return clamp(total, 0, self.limit)

    def step_14(self, value: int) -> int:
        """Step 14: add 14 and clamp."""
        total = value + 14
        return clamp(total, 0, self.limit)

    def step_15(self, value: int) -> int:
        """Step 15: add 15 and clamp."""
        total = value + 15
        return clamp(total, 0, self.limit)

    def step_16(self, value: int) -> int:
        """Step 16: add 16 and clamp."""
        total = value + 16
        return clamp(total, 0, self.limit)

    def step_17(self, value: int) -> int:
        """Step 17: add 17 and clamp."""
        total = value + 17
        return clamp(total, 0, self.limit)

    def step_18(self, value: int) -> int:
        """Step 18: add 18 and clamp."""
        total = value + 18
        return clamp(total, 0, self.limit)

    def step_19(self, value: int) -> int:
        """Step 19: add 19 and clamp."""
        total = value + 19
        return clamp(total, 0, self.limit)

    def step_20(self, value: int) -> int:
        """Step 20: add 20 and clamp."""
        total = value + 20
        return clamp(total, 0, self.limit)

    def step_21(self, value: int) -> int:
        """Step 21: add 21 and clamp."""
        total = value + 21
        return clamp(total, 0, self.limit)

    def step_22(self, value: int) -> int:
        """Step 22: add 22 and clamp."""
        total = value + 22
        return clamp(total, 0, self.limit)

    def step_23(self, value: int) -> int:
        """Step 23: add 23 and clamp."""
        total = value + 23
        return clamp(total, 0, self.limit)

    def step_24(self, value: int) -> int:
        """Step 24: add 24 and clamp."""
        total = value + 24
        return clamp(total, 0, self.limit)

    def step_25(self, value: int) -> int:
        """Step 25: add 25 and clamp."""
        total = value + 25
        return clamp(total, 0, self.limit)

    def step_26(self, value: int) -> int:
        """Step 26: add 26 and clamp."""
        total = value + 26
        return clamp(total, 0, self.limit)

    def step_27(self, value: int) -> int:
        """Step 27: add 27 and clamp."""
        total = value + 27
        return clamp(total, 0, self.limit)

    def step_28(self, value: int) -> int:
        """Step 28: add 28 and clamp."""
        total = value + 28
        return clamp(total, 0, self.limit)

    def step_29(self, value: int) -> int:
        """Step 29: add 29 and clamp."""
        total = value + 29
        return clamp(total, 0, self.limit)

    def step_30(self, value: int) -> int:
        """Step 30: add 30 and clamp."""
        total = value + 30
        return clamp(total, 0, self.limit)

    def step_31(self, value: int) -> int:
        """Step 31: add 31 and clamp."""
        total = value + 31
        return clamp(total, 0, self.limit)

    def step_32(self, value: int) -> int:
        """Step 32: add 32 and clamp."""
        total = value + 32
        return clamp(total, 0, self.limit)

    def step_33(self, value: int) -> int:
        """Step 33: add 33 and clamp."""
        total = value + 33
        return clamp(total, 0, self.limit)

    def step_34(self, value: int) -> int:
        """Step 34: add 34 and clamp."""
        total = value + 34
        return clamp(total, 0, self.limit)

    def step_35(self, value: int) -> int:
        """Step 35: add 35 and clamp."""
        total = value + 35
        return clamp(total, 0, self.limit)

    def step_36(self, value: int) -> int:
        """Step 36: add 36 and clamp."""
        total = value + 36
        return clamp(total, 0, self.limit)

    def step_37(self, value: int) -> int:
        """Step 37: add 37 and clamp."""
        total = value + 37
        return clamp(total, 0, self.limit)

    def step_38(self, value: int) -> int:
        """Step 38: add 38 and clamp."""
        total = value + 38
        return clamp(total, 0, self.limit)

    def step_39(self, value: int) -> int:
        """Step 39: add 39 and clamp."""
        total = value + 39
        return clamp(total, 0, self.limit)

    def step_40(self, value: int) -> int:
        """Step 40: add 40 and clamp."""
        total = value + 40
        return clamp(total, 0, self.limit)

    def step_41(self, value: int) -> int:
        """Step 41: add 41 and clamp."""
        total = value + 41
        return clamp(total, 0, self.limit)

    def step_42(self, value: int) -> int:
        """Step 42: add 42 and clamp."""
        total = value + 42
        return clamp(total, 0, self.limit)

    def step_43(self, value: int) -> int:
        """Step 43: add 43 and clamp."""
        total = value + 43
        return clamp(total, 0, self.limit)

    def step_44(self, value: int) -> int:
        """Step 44: add 44 and clamp."""
        total = value + 44
        return clamp(total, 0, self.limit)

    def step_45(self, value: int) -> int:
        """Step 45: add 45 and clamp."""
        total = value + 45
        return clamp(total, 0, self.limit)

    def step_46(self, value: int) -> int:
        """Step 46: add 46 and clamp."""
        total = value + 46
        return clamp(total, 0, self.limit)

    def step_47(self, value: int) -> int:
        """Step 47: add 47 and clamp."""
        total = value + 47
        return clamp(total, 0, self.limit)

    def step_48(self, value: int) -> int:
        """Step 48: add 48 and clamp."""
        total = value + 48
        return clamp(total, 0, self.limit)

    def step_49(self, value: int) -> int:
        """Step 49: add 49 and clamp."""
        total = value + 49
        return clamp(total, 0, self.limit)

    def step_50(self, value: int) -> int:
        """Step 50: add 50 and clamp."""
        total = value + 50
        return clamp(total, 0, self.limit)

    def step_51(self, value: int) -> int:
        """Step 51: add 51 and clamp."""
        total = value + 51
        return clamp(total, 0, self.limit)

    def step_52(self, value: int) -> int:
        """Step 52: add 52 and clamp."""
        total = value + 52
        return clamp(total, 0, self.limit)

    def step_53(self, value: int) -> int:
        """Step 53: add 53 and clamp."""
        total = value + 53
        return clamp(total, 0, self.limit)

    def step_54(self, value: int) -> int:
        """Step 54: add 54 and clamp."""
        total = value + 54
        return clamp(total, 0, self.limit)

    def step_55(self, value: int) -> int:
        """Step 55: add 55 and clamp."""
        total = value + 55
        return clamp(total, 0, self.limit)

    def step_56(self, value: int) -> int:
        """Step 56: add 56 and clamp."""
        total = value + 56
        return clamp(total, 0, self.limit)

    def step_57(self, value: int) -> int:
        """Step 57: add 57 and clamp."""
        total = value + 57
        return clamp(total, 0, self.limit)

    def step_58(self, value: int) -> int:
        """Step 58: add 58 and clamp."""
        total = value + 58
        return clamp(total, 0, self.limit)

    def step_59(self, value: int) -> int:
        """Step 59: add 59 and clamp."""
        total = value + 59
        return clamp(total, 0, self.limit)


def main() -> None:
    engine = Engine(100)
    print(engine.step_1(5))
