"""Reading people's words without a model or a database: the parsers every layer shares.

``dates``    dates, times and schedules as people say them, against the day they said them
``amounts``  amounts of money and other numbers ("6k", "$38,000 all in", "£240 a month")

Nothing here touches the database or a model: text in, plain values out. A fact or a message
keeps its own words; what these parsers find is stored beside the words, never spliced in.
"""
