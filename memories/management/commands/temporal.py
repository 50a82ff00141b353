from memories.management.commands._passes import PassCommand


class Command(PassCommand):
    help = "The daily temporal pass: trends, transitions, cycles and correlations per entity."
    pass_name = "temporal"
