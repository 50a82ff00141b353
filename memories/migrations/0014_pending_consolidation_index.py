"""The 30-second consolidation pass asks which members have facts waiting: a partial index
answers without scanning every memory."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("conversations", "0008_act_moved_to_memories"),
        ("memories", "0013_observations"),
        ("narratives", "0002_chain"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(
                condition=models.Q(("consolidated_at", None)),
                fields=["owner"],
                name="memory_pending_consolidation",
            ),
        ),
    ]
