"""Weather forecasts (unrelated to the shop)."""


class Forecast:
    def __init__(self, city: str) -> None:
        self.city = city

    def temperature_tomorrow(self) -> float:
        return 21.0


def forecast_for(city: str) -> Forecast:
    return Forecast(city)
