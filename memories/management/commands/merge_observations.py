from memories.management.commands._passes import PassCommand


class Command(PassCommand):
    help = "The daily merge: near-duplicate observations joined, most similar pair first."
    pass_name = "merge"
