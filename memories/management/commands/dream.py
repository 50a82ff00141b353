from memories.management.commands._passes import PassCommand


class Command(PassCommand):
    help = "The daily dream pass: cross-domain insights from distant clusters of facts."
    pass_name = "dream"
