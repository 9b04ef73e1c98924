package capacity

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	store "placelab/sql"
)

// Store keeps rep as a row of capacity_answer (its JSON, as
// capacity --format json prints it, beside the columns to filter on) and
// sets rep.AnswerID.
func Store(ctx context.Context, db *store.DB, rep *Result) error {
	if rep.AnswerID != 0 {
		return fmt.Errorf("%w: answer already stored as %d", ErrCapacity, rep.AnswerID)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	var id int64
	err = db.SQL().QueryRowContext(ctx, store.MustQuery("capacity_answer_insert"), rep.Dataset, rep.LoadID, time.Now().UTC(),
		rep.Policy, rep.Machines, rep.MaxRejection, rep.TargetCounts, rep.ShedRate, rep.LPMachines, rep.Monotone, string(b)).Scan(&id)
	if err != nil {
		return fmt.Errorf("analysis: storing the capacity answer: %w", err)
	}
	rep.AnswerID = id
	return nil
}
