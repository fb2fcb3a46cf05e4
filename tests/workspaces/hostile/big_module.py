"""A large generated module: many small shape classes, used to test size handling."""

from __future__ import annotations

import math


class Shape000:
    """Shape number 0."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 1

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape000:
        return Shape000(self.width * factor, self.height * factor)


class Shape001:
    """Shape number 1."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 2

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape001:
        return Shape001(self.width * factor, self.height * factor)


class Shape002:
    """Shape number 2."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 3

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape002:
        return Shape002(self.width * factor, self.height * factor)


class Shape003:
    """Shape number 3."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 4

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape003:
        return Shape003(self.width * factor, self.height * factor)


class Shape004:
    """Shape number 4."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 5

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape004:
        return Shape004(self.width * factor, self.height * factor)


class Shape005:
    """Shape number 5."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 6

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape005:
        return Shape005(self.width * factor, self.height * factor)


class Shape006:
    """Shape number 6."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 7

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape006:
        return Shape006(self.width * factor, self.height * factor)


class Shape007:
    """Shape number 7."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 8

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape007:
        return Shape007(self.width * factor, self.height * factor)


class Shape008:
    """Shape number 8."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 9

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape008:
        return Shape008(self.width * factor, self.height * factor)


class Shape009:
    """Shape number 9."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 10

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape009:
        return Shape009(self.width * factor, self.height * factor)


class Shape010:
    """Shape number 10."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 11

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape010:
        return Shape010(self.width * factor, self.height * factor)


class Shape011:
    """Shape number 11."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 12

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape011:
        return Shape011(self.width * factor, self.height * factor)


class Shape012:
    """Shape number 12."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 13

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape012:
        return Shape012(self.width * factor, self.height * factor)


class Shape013:
    """Shape number 13."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 14

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape013:
        return Shape013(self.width * factor, self.height * factor)


class Shape014:
    """Shape number 14."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 15

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape014:
        return Shape014(self.width * factor, self.height * factor)


class Shape015:
    """Shape number 15."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 16

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape015:
        return Shape015(self.width * factor, self.height * factor)


class Shape016:
    """Shape number 16."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 17

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape016:
        return Shape016(self.width * factor, self.height * factor)


class Shape017:
    """Shape number 17."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 18

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape017:
        return Shape017(self.width * factor, self.height * factor)


class Shape018:
    """Shape number 18."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 19

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape018:
        return Shape018(self.width * factor, self.height * factor)


class Shape019:
    """Shape number 19."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 20

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape019:
        return Shape019(self.width * factor, self.height * factor)


class Shape020:
    """Shape number 20."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 21

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape020:
        return Shape020(self.width * factor, self.height * factor)


class Shape021:
    """Shape number 21."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 22

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape021:
        return Shape021(self.width * factor, self.height * factor)


class Shape022:
    """Shape number 22."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 23

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape022:
        return Shape022(self.width * factor, self.height * factor)


class Shape023:
    """Shape number 23."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 24

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape023:
        return Shape023(self.width * factor, self.height * factor)


class Shape024:
    """Shape number 24."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 25

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape024:
        return Shape024(self.width * factor, self.height * factor)


class Shape025:
    """Shape number 25."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 26

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape025:
        return Shape025(self.width * factor, self.height * factor)


class Shape026:
    """Shape number 26."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 27

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape026:
        return Shape026(self.width * factor, self.height * factor)


class Shape027:
    """Shape number 27."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 28

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape027:
        return Shape027(self.width * factor, self.height * factor)


class Shape028:
    """Shape number 28."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 29

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape028:
        return Shape028(self.width * factor, self.height * factor)


class Shape029:
    """Shape number 29."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 30

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape029:
        return Shape029(self.width * factor, self.height * factor)


class Shape030:
    """Shape number 30."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 31

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape030:
        return Shape030(self.width * factor, self.height * factor)


class Shape031:
    """Shape number 31."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 32

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape031:
        return Shape031(self.width * factor, self.height * factor)


class Shape032:
    """Shape number 32."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 33

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape032:
        return Shape032(self.width * factor, self.height * factor)


class Shape033:
    """Shape number 33."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 34

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape033:
        return Shape033(self.width * factor, self.height * factor)


class Shape034:
    """Shape number 34."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 35

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape034:
        return Shape034(self.width * factor, self.height * factor)


class Shape035:
    """Shape number 35."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 36

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape035:
        return Shape035(self.width * factor, self.height * factor)


class Shape036:
    """Shape number 36."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 37

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape036:
        return Shape036(self.width * factor, self.height * factor)


class Shape037:
    """Shape number 37."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 38

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape037:
        return Shape037(self.width * factor, self.height * factor)


class Shape038:
    """Shape number 38."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 39

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape038:
        return Shape038(self.width * factor, self.height * factor)


class Shape039:
    """Shape number 39."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 40

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape039:
        return Shape039(self.width * factor, self.height * factor)


class Shape040:
    """Shape number 40."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 41

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape040:
        return Shape040(self.width * factor, self.height * factor)


class Shape041:
    """Shape number 41."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 42

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape041:
        return Shape041(self.width * factor, self.height * factor)


class Shape042:
    """Shape number 42."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 43

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape042:
        return Shape042(self.width * factor, self.height * factor)


class Shape043:
    """Shape number 43."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 44

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape043:
        return Shape043(self.width * factor, self.height * factor)


class Shape044:
    """Shape number 44."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 45

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape044:
        return Shape044(self.width * factor, self.height * factor)


class Shape045:
    """Shape number 45."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 46

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape045:
        return Shape045(self.width * factor, self.height * factor)


class Shape046:
    """Shape number 46."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 47

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape046:
        return Shape046(self.width * factor, self.height * factor)


class Shape047:
    """Shape number 47."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 48

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape047:
        return Shape047(self.width * factor, self.height * factor)


class Shape048:
    """Shape number 48."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 49

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape048:
        return Shape048(self.width * factor, self.height * factor)


class Shape049:
    """Shape number 49."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 50

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape049:
        return Shape049(self.width * factor, self.height * factor)


class Shape050:
    """Shape number 50."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 51

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape050:
        return Shape050(self.width * factor, self.height * factor)


class Shape051:
    """Shape number 51."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 52

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape051:
        return Shape051(self.width * factor, self.height * factor)


class Shape052:
    """Shape number 52."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 53

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape052:
        return Shape052(self.width * factor, self.height * factor)


class Shape053:
    """Shape number 53."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 54

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape053:
        return Shape053(self.width * factor, self.height * factor)


class Shape054:
    """Shape number 54."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 55

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape054:
        return Shape054(self.width * factor, self.height * factor)


class Shape055:
    """Shape number 55."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 56

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape055:
        return Shape055(self.width * factor, self.height * factor)


class Shape056:
    """Shape number 56."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 57

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape056:
        return Shape056(self.width * factor, self.height * factor)


class Shape057:
    """Shape number 57."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 58

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape057:
        return Shape057(self.width * factor, self.height * factor)


class Shape058:
    """Shape number 58."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 59

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape058:
        return Shape058(self.width * factor, self.height * factor)


class Shape059:
    """Shape number 59."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 60

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape059:
        return Shape059(self.width * factor, self.height * factor)


class Shape060:
    """Shape number 60."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 61

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape060:
        return Shape060(self.width * factor, self.height * factor)


class Shape061:
    """Shape number 61."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 62

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape061:
        return Shape061(self.width * factor, self.height * factor)


class Shape062:
    """Shape number 62."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 63

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape062:
        return Shape062(self.width * factor, self.height * factor)


class Shape063:
    """Shape number 63."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 64

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape063:
        return Shape063(self.width * factor, self.height * factor)


class Shape064:
    """Shape number 64."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 65

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape064:
        return Shape064(self.width * factor, self.height * factor)


class Shape065:
    """Shape number 65."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 66

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape065:
        return Shape065(self.width * factor, self.height * factor)


class Shape066:
    """Shape number 66."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 67

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape066:
        return Shape066(self.width * factor, self.height * factor)


class Shape067:
    """Shape number 67."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 68

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape067:
        return Shape067(self.width * factor, self.height * factor)


class Shape068:
    """Shape number 68."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 69

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape068:
        return Shape068(self.width * factor, self.height * factor)


class Shape069:
    """Shape number 69."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 70

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape069:
        return Shape069(self.width * factor, self.height * factor)


class Shape070:
    """Shape number 70."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 71

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape070:
        return Shape070(self.width * factor, self.height * factor)


class Shape071:
    """Shape number 71."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 72

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape071:
        return Shape071(self.width * factor, self.height * factor)


class Shape072:
    """Shape number 72."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 73

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape072:
        return Shape072(self.width * factor, self.height * factor)


class Shape073:
    """Shape number 73."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 74

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape073:
        return Shape073(self.width * factor, self.height * factor)


class Shape074:
    """Shape number 74."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 75

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape074:
        return Shape074(self.width * factor, self.height * factor)


class Shape075:
    """Shape number 75."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 76

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape075:
        return Shape075(self.width * factor, self.height * factor)


class Shape076:
    """Shape number 76."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 77

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape076:
        return Shape076(self.width * factor, self.height * factor)


class Shape077:
    """Shape number 77."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 78

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape077:
        return Shape077(self.width * factor, self.height * factor)


class Shape078:
    """Shape number 78."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 79

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape078:
        return Shape078(self.width * factor, self.height * factor)


class Shape079:
    """Shape number 79."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 80

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape079:
        return Shape079(self.width * factor, self.height * factor)


class Shape080:
    """Shape number 80."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 81

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape080:
        return Shape080(self.width * factor, self.height * factor)


class Shape081:
    """Shape number 81."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 82

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape081:
        return Shape081(self.width * factor, self.height * factor)


class Shape082:
    """Shape number 82."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 83

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape082:
        return Shape082(self.width * factor, self.height * factor)


class Shape083:
    """Shape number 83."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 84

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape083:
        return Shape083(self.width * factor, self.height * factor)


class Shape084:
    """Shape number 84."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 85

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape084:
        return Shape084(self.width * factor, self.height * factor)


class Shape085:
    """Shape number 85."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 86

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape085:
        return Shape085(self.width * factor, self.height * factor)


class Shape086:
    """Shape number 86."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 87

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape086:
        return Shape086(self.width * factor, self.height * factor)


class Shape087:
    """Shape number 87."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 88

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape087:
        return Shape087(self.width * factor, self.height * factor)


class Shape088:
    """Shape number 88."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 89

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape088:
        return Shape088(self.width * factor, self.height * factor)


class Shape089:
    """Shape number 89."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 90

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape089:
        return Shape089(self.width * factor, self.height * factor)


class Shape090:
    """Shape number 90."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 91

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape090:
        return Shape090(self.width * factor, self.height * factor)


class Shape091:
    """Shape number 91."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 92

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape091:
        return Shape091(self.width * factor, self.height * factor)


class Shape092:
    """Shape number 92."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 93

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape092:
        return Shape092(self.width * factor, self.height * factor)


class Shape093:
    """Shape number 93."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 94

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape093:
        return Shape093(self.width * factor, self.height * factor)


class Shape094:
    """Shape number 94."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 95

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape094:
        return Shape094(self.width * factor, self.height * factor)


class Shape095:
    """Shape number 95."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 96

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape095:
        return Shape095(self.width * factor, self.height * factor)


class Shape096:
    """Shape number 96."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 97

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape096:
        return Shape096(self.width * factor, self.height * factor)


class Shape097:
    """Shape number 97."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 98

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape097:
        return Shape097(self.width * factor, self.height * factor)


class Shape098:
    """Shape number 98."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 99

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape098:
        return Shape098(self.width * factor, self.height * factor)


class Shape099:
    """Shape number 99."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 100

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape099:
        return Shape099(self.width * factor, self.height * factor)


class Shape100:
    """Shape number 100."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 101

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape100:
        return Shape100(self.width * factor, self.height * factor)


class Shape101:
    """Shape number 101."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 102

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape101:
        return Shape101(self.width * factor, self.height * factor)


class Shape102:
    """Shape number 102."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 103

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape102:
        return Shape102(self.width * factor, self.height * factor)


class Shape103:
    """Shape number 103."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 104

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape103:
        return Shape103(self.width * factor, self.height * factor)


class Shape104:
    """Shape number 104."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 105

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape104:
        return Shape104(self.width * factor, self.height * factor)


class Shape105:
    """Shape number 105."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 106

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape105:
        return Shape105(self.width * factor, self.height * factor)


class Shape106:
    """Shape number 106."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 107

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape106:
        return Shape106(self.width * factor, self.height * factor)


class Shape107:
    """Shape number 107."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 108

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape107:
        return Shape107(self.width * factor, self.height * factor)


class Shape108:
    """Shape number 108."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 109

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape108:
        return Shape108(self.width * factor, self.height * factor)


class Shape109:
    """Shape number 109."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 110

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape109:
        return Shape109(self.width * factor, self.height * factor)


class Shape110:
    """Shape number 110."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 111

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape110:
        return Shape110(self.width * factor, self.height * factor)


class Shape111:
    """Shape number 111."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 112

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape111:
        return Shape111(self.width * factor, self.height * factor)


class Shape112:
    """Shape number 112."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 113

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape112:
        return Shape112(self.width * factor, self.height * factor)


class Shape113:
    """Shape number 113."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 114

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape113:
        return Shape113(self.width * factor, self.height * factor)


class Shape114:
    """Shape number 114."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 115

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape114:
        return Shape114(self.width * factor, self.height * factor)


class Shape115:
    """Shape number 115."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 116

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape115:
        return Shape115(self.width * factor, self.height * factor)


class Shape116:
    """Shape number 116."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 117

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape116:
        return Shape116(self.width * factor, self.height * factor)


class Shape117:
    """Shape number 117."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 118

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape117:
        return Shape117(self.width * factor, self.height * factor)


class Shape118:
    """Shape number 118."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 119

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape118:
        return Shape118(self.width * factor, self.height * factor)


class Shape119:
    """Shape number 119."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 120

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape119:
        return Shape119(self.width * factor, self.height * factor)


class Shape120:
    """Shape number 120."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 121

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape120:
        return Shape120(self.width * factor, self.height * factor)


class Shape121:
    """Shape number 121."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 122

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape121:
        return Shape121(self.width * factor, self.height * factor)


class Shape122:
    """Shape number 122."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 123

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape122:
        return Shape122(self.width * factor, self.height * factor)


class Shape123:
    """Shape number 123."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 124

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape123:
        return Shape123(self.width * factor, self.height * factor)


class Shape124:
    """Shape number 124."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 125

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape124:
        return Shape124(self.width * factor, self.height * factor)


class Shape125:
    """Shape number 125."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 126

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape125:
        return Shape125(self.width * factor, self.height * factor)


class Shape126:
    """Shape number 126."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 127

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape126:
        return Shape126(self.width * factor, self.height * factor)


class Shape127:
    """Shape number 127."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 128

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape127:
        return Shape127(self.width * factor, self.height * factor)


class Shape128:
    """Shape number 128."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 129

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape128:
        return Shape128(self.width * factor, self.height * factor)


class Shape129:
    """Shape number 129."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 130

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape129:
        return Shape129(self.width * factor, self.height * factor)


class Shape130:
    """Shape number 130."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 131

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape130:
        return Shape130(self.width * factor, self.height * factor)


class Shape131:
    """Shape number 131."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 132

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape131:
        return Shape131(self.width * factor, self.height * factor)


class Shape132:
    """Shape number 132."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 133

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape132:
        return Shape132(self.width * factor, self.height * factor)


class Shape133:
    """Shape number 133."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 134

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape133:
        return Shape133(self.width * factor, self.height * factor)


class Shape134:
    """Shape number 134."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 135

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape134:
        return Shape134(self.width * factor, self.height * factor)


class Shape135:
    """Shape number 135."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 136

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape135:
        return Shape135(self.width * factor, self.height * factor)


class Shape136:
    """Shape number 136."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 137

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape136:
        return Shape136(self.width * factor, self.height * factor)


class Shape137:
    """Shape number 137."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 138

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape137:
        return Shape137(self.width * factor, self.height * factor)


class Shape138:
    """Shape number 138."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 139

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape138:
        return Shape138(self.width * factor, self.height * factor)


class Shape139:
    """Shape number 139."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 140

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape139:
        return Shape139(self.width * factor, self.height * factor)


class Shape140:
    """Shape number 140."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 141

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape140:
        return Shape140(self.width * factor, self.height * factor)


class Shape141:
    """Shape number 141."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 142

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape141:
        return Shape141(self.width * factor, self.height * factor)


class Shape142:
    """Shape number 142."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 143

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape142:
        return Shape142(self.width * factor, self.height * factor)


class Shape143:
    """Shape number 143."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 144

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape143:
        return Shape143(self.width * factor, self.height * factor)


class Shape144:
    """Shape number 144."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 145

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape144:
        return Shape144(self.width * factor, self.height * factor)


class Shape145:
    """Shape number 145."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 146

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape145:
        return Shape145(self.width * factor, self.height * factor)


class Shape146:
    """Shape number 146."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 147

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape146:
        return Shape146(self.width * factor, self.height * factor)


class Shape147:
    """Shape number 147."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 148

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape147:
        return Shape147(self.width * factor, self.height * factor)


class Shape148:
    """Shape number 148."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 149

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape148:
        return Shape148(self.width * factor, self.height * factor)


class Shape149:
    """Shape number 149."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 150

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape149:
        return Shape149(self.width * factor, self.height * factor)


class Shape150:
    """Shape number 150."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 151

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape150:
        return Shape150(self.width * factor, self.height * factor)


class Shape151:
    """Shape number 151."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 152

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape151:
        return Shape151(self.width * factor, self.height * factor)


class Shape152:
    """Shape number 152."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 153

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape152:
        return Shape152(self.width * factor, self.height * factor)


class Shape153:
    """Shape number 153."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 154

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape153:
        return Shape153(self.width * factor, self.height * factor)


class Shape154:
    """Shape number 154."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 155

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape154:
        return Shape154(self.width * factor, self.height * factor)


class Shape155:
    """Shape number 155."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 156

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape155:
        return Shape155(self.width * factor, self.height * factor)


class Shape156:
    """Shape number 156."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 157

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape156:
        return Shape156(self.width * factor, self.height * factor)


class Shape157:
    """Shape number 157."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 158

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape157:
        return Shape157(self.width * factor, self.height * factor)


class Shape158:
    """Shape number 158."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 159

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape158:
        return Shape158(self.width * factor, self.height * factor)


class Shape159:
    """Shape number 159."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 160

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape159:
        return Shape159(self.width * factor, self.height * factor)


class Shape160:
    """Shape number 160."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 161

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape160:
        return Shape160(self.width * factor, self.height * factor)


class Shape161:
    """Shape number 161."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 162

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape161:
        return Shape161(self.width * factor, self.height * factor)


class Shape162:
    """Shape number 162."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 163

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape162:
        return Shape162(self.width * factor, self.height * factor)


class Shape163:
    """Shape number 163."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 164

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape163:
        return Shape163(self.width * factor, self.height * factor)


class Shape164:
    """Shape number 164."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 165

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape164:
        return Shape164(self.width * factor, self.height * factor)


class Shape165:
    """Shape number 165."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 166

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape165:
        return Shape165(self.width * factor, self.height * factor)


class Shape166:
    """Shape number 166."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 167

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape166:
        return Shape166(self.width * factor, self.height * factor)


class Shape167:
    """Shape number 167."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 168

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape167:
        return Shape167(self.width * factor, self.height * factor)


class Shape168:
    """Shape number 168."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 169

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape168:
        return Shape168(self.width * factor, self.height * factor)


class Shape169:
    """Shape number 169."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height

    def area(self) -> float:
        return self.width * self.height * 170

    def perimeter(self) -> float:
        return 2 * (self.width + self.height)

    def diagonal(self) -> float:
        return math.hypot(self.width, self.height)

    def scaled(self, factor: float) -> Shape169:
        return Shape169(self.width * factor, self.height * factor)


def total_area(shapes: list[Shape000]) -> float:
    """Sum of the areas."""
    return sum(shape.area() for shape in shapes)
