"""Prints a weather report."""

from weather.forecast import Forecast, forecast_for


def print_report(city: str) -> None:
    forecast: Forecast = forecast_for(city)
    print(forecast.temperature_tomorrow())
