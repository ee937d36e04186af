"""Airport codes a person reads as places: "LHR" is London Heathrow.

A faithful answer over a booking or a flight status spells out the codes of the tool
result ("from Heathrow to New York JFK"); the name check (`scoring/novel_names.py`) must
not take those names for the answer's own. Busy airports only: a code outside this table
leaves its names unexcused, which costs a false alarm, never a missed contradiction.
"""

from __future__ import annotations

AIRPORTS = {
    "LHR": "London Heathrow", "LGW": "London Gatwick", "STN": "London Stansted",
    "LTN": "London Luton", "LCY": "London City", "MAN": "Manchester", "EDI": "Edinburgh",
    "GLA": "Glasgow", "BHX": "Birmingham", "BRS": "Bristol", "DUB": "Dublin",
    "CDG": "Paris Charles de Gaulle", "ORY": "Paris Orly", "AMS": "Amsterdam Schiphol",
    "BRU": "Brussels", "FRA": "Frankfurt", "MUC": "Munich", "BER": "Berlin Brandenburg",
    "HAM": "Hamburg", "DUS": "Düsseldorf", "ZRH": "Zurich", "GVA": "Geneva", "VIE": "Vienna",
    "CPH": "Copenhagen Kastrup", "OSL": "Oslo Gardermoen", "ARN": "Stockholm Arlanda",
    "HEL": "Helsinki", "MAD": "Madrid Barajas", "BCN": "Barcelona", "LIS": "Lisbon",
    "OPO": "Porto", "FCO": "Rome Fiumicino", "MXP": "Milan Malpensa", "LIN": "Milan Linate",
    "ATH": "Athens", "IST": "Istanbul", "WAW": "Warsaw", "PRG": "Prague", "BUD": "Budapest",
    "KEF": "Reykjavik Keflavik", "JFK": "New York Kennedy", "LGA": "New York LaGuardia",
    "EWR": "Newark New York", "BOS": "Boston Logan", "IAD": "Washington Dulles",
    "DCA": "Washington Reagan National", "ORD": "Chicago O'Hare", "MDW": "Chicago Midway",
    "ATL": "Atlanta", "MIA": "Miami", "DFW": "Dallas Fort Worth", "IAH": "Houston",
    "DEN": "Denver", "PHX": "Phoenix", "LAS": "Las Vegas", "LAX": "Los Angeles",
    "SFO": "San Francisco", "SJC": "San Jose", "SEA": "Seattle Tacoma", "PDX": "Portland",
    "MSP": "Minneapolis", "DTW": "Detroit", "PHL": "Philadelphia", "CLT": "Charlotte",
    "MCO": "Orlando", "YYZ": "Toronto Pearson", "YVR": "Vancouver", "YUL": "Montreal",
    "MEX": "Mexico City", "GRU": "São Paulo Guarulhos", "EZE": "Buenos Aires",
    "DXB": "Dubai", "DOH": "Doha", "AUH": "Abu Dhabi", "SIN": "Singapore Changi",
    "HKG": "Hong Kong", "NRT": "Tokyo Narita", "HND": "Tokyo Haneda", "ICN": "Seoul Incheon",
    "PEK": "Beijing", "PVG": "Shanghai Pudong", "BKK": "Bangkok", "DEL": "Delhi",
    "BOM": "Mumbai", "SYD": "Sydney", "MEL": "Melbourne", "AKL": "Auckland",
    "JNB": "Johannesburg", "CPT": "Cape Town", "NBO": "Nairobi", "CAI": "Cairo",
}  # fmt: skip


def spelled_codes(codes: set[str]) -> set[str]:
    """The lower-cased words that the airport codes among `codes` stand for."""
    return {w.casefold() for c in codes if c in AIRPORTS for w in AIRPORTS[c].split()}
